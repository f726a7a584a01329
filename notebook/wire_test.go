package notebook

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestSignAndVerify(t *testing.T) {
	s := signer{key: []byte("key")}
	frames, err := s.encode([][]byte{[]byte("id1"), []byte("id2")}, newHeader("sess", "execute_request"), nil, nil, map[string]any{"code": "1"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Identities) != 2 || m.Header.MsgType != "execute_request" || string(m.Content) != `{"code":"1"}` {
		t.Fatalf("decoded %+v", m)
	}
	// The signature is HMAC-SHA256 of header, parent, metadata, content.
	want := s.sign(frames[4], frames[5], frames[6], frames[7])
	if string(frames[3]) != string(want) || len(want) != 64 {
		t.Fatalf("signature %s", frames[3])
	}
	tamper := func(i int, b []byte) [][]byte {
		f := append([][]byte{}, frames...)
		f[i] = b
		return f
	}
	for name, f := range map[string][][]byte{
		"content changed":   tamper(7, []byte(`{"code":"2"}`)),
		"header changed":    tamper(4, []byte(`{}`)),
		"signature missing": tamper(3, []byte{}),
		"signature garbage": tamper(3, []byte("zz")),
	} {
		if _, err := s.decode(f); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: decode = %v, want ErrSignature", name, err)
		}
	}
	if _, err := (signer{key: []byte("other")}).decode(frames); !errors.Is(err, ErrSignature) {
		t.Errorf("another key: %v", err)
	}
	if _, err := s.decode(frames[:5]); !errors.Is(err, ErrMessage) {
		t.Errorf("truncated: %v", err)
	}
	if _, err := s.decode([][]byte{[]byte("no delimiter")}); !errors.Is(err, ErrMessage) {
		t.Errorf("no delimiter: %v", err)
	}
}

func TestNewID(t *testing.T) {
	a, b := newID(), newID()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Fatalf("ids %s %s", a, b)
	}
}

// FuzzDecode feeds arbitrary frames to the verifier: it must never panic,
// and must accept only what was signed with the key.
func FuzzDecode(f *testing.F) {
	s := signer{key: []byte("fuzz-key")}
	good, _ := s.encode([][]byte{[]byte("id")}, newHeader("s", "kernel_info_request"), nil, nil, map[string]any{})
	f.Add(good[0], good[1], good[2], good[3], good[4], good[5], good[6])
	f.Add([]byte{}, []byte("<IDS|MSG>"), []byte(""), []byte("{"), []byte("{}"), []byte("{}"), []byte("{}"))
	f.Fuzz(func(t *testing.T, id, delim, sig, hdr, parent, meta, content []byte) {
		m, err := s.decode([][]byte{id, delim, sig, hdr, parent, meta, content})
		if err != nil {
			return
		}
		if string(sig) != string(s.sign(m.RawHeader, m.Parent, m.Metadata, m.Content)) {
			t.Fatal("accepted a message with a wrong signature")
		}
		if !json.Valid(m.RawHeader) {
			t.Fatal("accepted an invalid header")
		}
	})
}
