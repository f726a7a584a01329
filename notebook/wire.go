package notebook

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Errors of the wire protocol.
var (
	// ErrSignature marks a message whose HMAC signature is missing or
	// wrong. Such messages are dropped: the connection file's key is the
	// only credential a client has.
	ErrSignature = errors.New("notebook: bad message signature")
	// ErrMessage marks a malformed message.
	ErrMessage = errors.New("notebook: malformed message")
)

// delimiter separates the routing identities from the message proper.
var delimiter = []byte("<IDS|MSG>")

// protocolVersion is the Jupyter messaging protocol version spoken here.
const protocolVersion = "5.3"

// header is a message header.
type header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// message is one Jupyter message. The parent header is kept as the raw
// bytes received, so a reply echoes exactly what the client sent.
type message struct {
	Identities [][]byte
	Header     header
	RawHeader  json.RawMessage
	Parent     json.RawMessage
	Metadata   json.RawMessage
	Content    json.RawMessage
	Buffers    [][]byte
}

// signer signs and verifies messages with HMAC-SHA256.
type signer struct{ key []byte }

func (s signer) sign(parts ...[]byte) []byte {
	mac := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		mac.Write(p)
	}
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// decode parses and verifies the frames of a received message.
func (s signer) decode(frames [][]byte) (*message, error) {
	i := 0
	for i < len(frames) && !bytes.Equal(frames[i], delimiter) {
		i++
	}
	if i == len(frames) || len(frames) < i+6 {
		return nil, fmt.Errorf("%w: %d frames, no delimiter or too few parts", ErrMessage, len(frames))
	}
	sig, hdr, parent, meta, content := frames[i+1], frames[i+2], frames[i+3], frames[i+4], frames[i+5]
	want := s.sign(hdr, parent, meta, content)
	if len(sig) == 0 || !hmac.Equal(sig, want) {
		return nil, ErrSignature
	}
	m := &message{Identities: frames[:i], RawHeader: hdr, Parent: parent, Metadata: meta, Content: content, Buffers: frames[i+6:]}
	if err := json.Unmarshal(hdr, &m.Header); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrMessage, err)
	}
	return m, nil
}

// encode builds the frames of a message to send.
func (s signer) encode(identities [][]byte, h header, parent json.RawMessage, metadata, content any) ([][]byte, error) {
	if len(parent) == 0 {
		parent = json.RawMessage("{}")
	}
	if metadata == nil {
		metadata = map[string]any{}
	}
	var parts [3][]byte // header, metadata, content
	for i, v := range []any{h, metadata, content} {
		var err error
		if parts[i], err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	hdr, meta, body := parts[0], parts[1], parts[2]
	frames := append([][]byte{}, identities...)
	frames = append(frames, delimiter, s.sign(hdr, parent, meta, body), hdr, parent, meta, body)
	return frames, nil
}

// newHeader returns a header for a new message of the given type in the
// kernel's session.
func newHeader(session, msgType string) header {
	return header{
		MsgID:    newID(),
		Session:  session,
		Username: "oclsolve",
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
		MsgType:  msgType,
		Version:  protocolVersion,
	}
}

// newID returns a random UUID (version 4).
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
