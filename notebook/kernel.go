package notebook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-zeromq/zmq4"
	"golang.org/x/sys/unix"

	"github.com/oclsolve/oclsolve/repl"
	"github.com/oclsolve/oclsolve/repl/display"
)

// ConnectionInfo is the connection file Jupyter writes for a kernel.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name"`
}

// ErrConnection marks an unusable connection file.
var ErrConnection = errors.New("notebook: bad connection file")

// ReadConnectionFile reads and checks a connection file. It refuses a file
// without a key or with a scheme other than hmac-sha256: without them any
// local process could run code in the kernel.
func ReadConnectionFile(path string) (*ConnectionInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ci ConnectionInfo
	if err := json.Unmarshal(b, &ci); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConnection, path, err)
	}
	if ci.Key == "" {
		return nil, fmt.Errorf("%w: %s: no key", ErrConnection, path)
	}
	if ci.SignatureScheme != "hmac-sha256" {
		return nil, fmt.Errorf("%w: %s: signature scheme %q, want hmac-sha256", ErrConnection, path, ci.SignatureScheme)
	}
	if ci.Transport != "tcp" && ci.Transport != "ipc" {
		return nil, fmt.Errorf("%w: %s: transport %q, want tcp or ipc", ErrConnection, path, ci.Transport)
	}
	if ci.IP == "" {
		return nil, fmt.Errorf("%w: %s: no ip", ErrConnection, path)
	}
	return &ci, nil
}

// endpoint returns the ZeroMQ address of one of the kernel's ports.
func (ci *ConnectionInfo) endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return fmt.Sprintf("tcp://%s:%d", ci.IP, port)
}

// Kernel is a running Jupyter kernel.
type Kernel struct {
	conn   *ConnectionInfo
	exec   Session
	signer signer
	log    *log.Logger

	session string

	shell, control, stdin, iopub, hb zmq4.Socket

	iopubMu   sync.Mutex
	execCount int
	history   [][3]any // session, line, input

	ctx    context.Context
	cancel context.CancelFunc
}

// ServeKernel runs a kernel on the given connection until a shutdown
// request arrives or ctx ends.
func ServeKernel(ctx context.Context, conn *ConnectionInfo, x Session) error {
	logFile := os.Stderr
	// The kernel's own log goes to the original standard error, which
	// cells' output capture leaves alone.
	if fd, err := unix.Dup(2); err == nil {
		logFile = os.NewFile(uintptr(fd), "kernel-log")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k := &Kernel{
		conn: conn, exec: x, signer: signer{key: []byte(conn.Key)},
		log:     log.New(logFile, "oclsolve kernel: ", log.LstdFlags),
		session: newID(),
		ctx:     ctx, cancel: cancel,
	}
	k.shell = zmq4.NewRouter(ctx)
	k.control = zmq4.NewRouter(ctx)
	k.stdin = zmq4.NewRouter(ctx)
	k.iopub = zmq4.NewPub(ctx)
	k.hb = zmq4.NewRep(ctx)
	for _, s := range []struct {
		sock zmq4.Socket
		port int
	}{{k.shell, conn.ShellPort}, {k.control, conn.ControlPort}, {k.stdin, conn.StdinPort}, {k.iopub, conn.IOPubPort}, {k.hb, conn.HBPort}} {
		if err := s.sock.Listen(conn.endpoint(s.port)); err != nil {
			k.closeSockets()
			return fmt.Errorf("notebook: listening on %s: %w", conn.endpoint(s.port), err)
		}
	}
	defer k.closeSockets()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig: // interrupt_mode "signal" front ends
				k.exec.Interrupt()
			}
		}
	}()

	go k.heartbeat()
	go k.serve(k.control, true)
	k.publish(nil, "status", map[string]any{"execution_state": "starting"})
	go k.serve(k.shell, false)
	<-ctx.Done()
	return nil
}

func (k *Kernel) closeSockets() {
	for _, s := range []zmq4.Socket{k.shell, k.control, k.stdin, k.iopub, k.hb} {
		if s != nil {
			s.Close()
		}
	}
}

// heartbeat echoes every ping back.
func (k *Kernel) heartbeat() {
	for {
		msg, err := k.hb.Recv()
		if err != nil {
			return
		}
		if err := k.hb.Send(msg); err != nil {
			return
		}
	}
}

// shutdownLinger is how long a kernel asked to shut down keeps its sockets
// open after its last message, so that queued IOPub messages reach clients.
const shutdownLinger = 250 * time.Millisecond

// serve handles the requests of the shell or the control socket, one at a
// time. The two run concurrently so that an interrupt on control reaches a
// cell that keeps shell busy.
func (k *Kernel) serve(sock zmq4.Socket, control bool) {
	for {
		raw, err := sock.Recv()
		if err != nil {
			if k.ctx.Err() == nil {
				k.log.Printf("receive: %v", err)
			}
			return
		}
		msg, err := k.signer.decode(raw.Frames)
		if err != nil {
			k.log.Printf("dropping message: %v", err)
			continue
		}
		if stop := k.handle(sock, msg); stop {
			// zmq4 sends on IOPub asynchronously: closing the sockets at
			// once could drop the final idle status that clients wait for.
			time.Sleep(shutdownLinger)
			k.cancel()
			return
		}
	}
}

// reply sends a reply on the socket the request came from.
func (k *Kernel) reply(sock zmq4.Socket, req *message, msgType string, content any) {
	frames, err := k.signer.encode(req.Identities, newHeader(k.session, msgType), json.RawMessage(req.RawHeader), nil, content)
	if err != nil {
		k.log.Printf("encoding %s: %v", msgType, err)
		return
	}
	if err := sock.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		k.log.Printf("sending %s: %v", msgType, err)
	}
}

// publish sends a message on IOPub, as a child of parent.
func (k *Kernel) publish(parent *message, msgType string, content any) {
	var parentHdr json.RawMessage
	if parent != nil {
		parentHdr = parent.RawHeader
	}
	topic := []byte("kernel." + k.session + "." + msgType)
	frames, err := k.signer.encode([][]byte{topic}, newHeader(k.session, msgType), parentHdr, nil, content)
	if err != nil {
		k.log.Printf("encoding %s: %v", msgType, err)
		return
	}
	k.iopubMu.Lock()
	defer k.iopubMu.Unlock()
	if err := k.iopub.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		k.log.Printf("publishing %s: %v", msgType, err)
	}
}

// handle answers one request. It reports whether the kernel must stop,
// which it does after the idle status is published.
func (k *Kernel) handle(sock zmq4.Socket, msg *message) (stop bool) {
	k.publish(msg, "status", map[string]any{"execution_state": "busy"})
	defer k.publish(msg, "status", map[string]any{"execution_state": "idle"})
	var content map[string]any
	if err := json.Unmarshal(msg.Content, &content); err != nil {
		k.log.Printf("%s: content: %v", msg.Header.MsgType, err)
		return false
	}
	switch msg.Header.MsgType {
	case "kernel_info_request":
		k.reply(sock, msg, "kernel_info_reply", k.kernelInfo())
	case "execute_request":
		k.execute(sock, msg, content)
	case "complete_request":
		k.reply(sock, msg, "complete_reply", k.complete(content))
	case "inspect_request":
		k.reply(sock, msg, "inspect_reply", k.inspect(content))
	case "is_complete_request":
		code, _ := content["code"].(string)
		status := repl.IsComplete(code)
		r := map[string]any{"status": status}
		if status == repl.Incomplete {
			r["indent"] = ""
		}
		k.reply(sock, msg, "is_complete_reply", r)
	case "interrupt_request":
		k.exec.Interrupt()
		k.reply(sock, msg, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		restart, _ := content["restart"].(bool)
		k.exec.Interrupt()
		k.reply(sock, msg, "shutdown_reply", map[string]any{"status": "ok", "restart": restart})
		return true
	case "history_request":
		k.reply(sock, msg, "history_reply", map[string]any{"status": "ok", "history": k.historyItems()})
	case "comm_info_request":
		k.reply(sock, msg, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case "comm_open":
		// No comm targets exist: close it, as the protocol asks.
		id, _ := content["comm_id"].(string)
		k.publish(msg, "comm_close", map[string]any{"comm_id": id, "data": map[string]any{}})
	default:
		k.log.Printf("ignoring %s", msg.Header.MsgType)
	}
	return false
}

func (k *Kernel) kernelInfo() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       protocolVersion,
		"implementation":         "oclsolve",
		"implementation_version": "0.1",
		"language_info": map[string]any{
			"name":               "go",
			"version":            strings.TrimPrefix(runtime.Version(), "go"),
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "",
		},
		"banner":     k.exec.Banner(),
		"help_links": []any{},
	}
}

// kernelSink publishes a cell's output as it happens.
type kernelSink struct {
	k      *Kernel
	parent *message
}

func (s kernelSink) Stream(name, text string) {
	s.k.publish(s.parent, "stream", map[string]any{"name": name, "text": text})
}

// Display publishes display_data, or update_display_data for an update of
// a display with an identifier (display.Handle).
func (s kernelSink) Display(d display.Data) {
	transient := map[string]any{}
	msgType := "display_data"
	if d.DisplayID != "" {
		transient["display_id"] = d.DisplayID
		if d.Update {
			msgType = "update_display_data"
		}
	}
	s.k.publish(s.parent, msgType, map[string]any{"data": d.Bundle, "metadata": metadata(d), "transient": transient})
}

func (k *Kernel) execute(sock zmq4.Socket, msg *message, content map[string]any) {
	code, _ := content["code"].(string)
	silent, _ := content["silent"].(bool)
	store := true
	if v, ok := content["store_history"].(bool); ok {
		store = v
	}
	if !silent && store {
		k.execCount++
		k.history = append(k.history, [3]any{0, k.execCount, code})
	}
	count := k.execCount
	if !silent {
		k.publish(msg, "execute_input", map[string]any{"code": code, "execution_count": count})
	}
	result, err := k.exec.Execute(code, kernelSink{k, msg})
	if err != nil {
		ce, ok := err.(*CellError)
		if !ok {
			ce = &CellError{Name: "Error", Value: err.Error(), Traceback: []string{err.Error()}}
		}
		k.publish(msg, "error", map[string]any{"ename": ce.Name, "evalue": ce.Value, "traceback": ce.Traceback})
		k.reply(sock, msg, "execute_reply", map[string]any{
			"status": "error", "execution_count": count,
			"ename": ce.Name, "evalue": ce.Value, "traceback": ce.Traceback,
		})
		return
	}
	if result != nil && !silent {
		k.publish(msg, "execute_result", map[string]any{"execution_count": count, "data": result.Bundle, "metadata": metadata(*result)})
	}
	k.reply(sock, msg, "execute_reply", map[string]any{
		"status": "ok", "execution_count": count, "payload": []any{}, "user_expressions": map[string]any{},
	})
}

// byteOffset converts a cursor position in code points, as the protocol
// counts them, to a byte offset in s.
func byteOffset(s string, cursor int) int {
	off := 0
	for i := 0; i < cursor && off < len(s); i++ {
		_, n := utf8.DecodeRuneInString(s[off:])
		off += n
	}
	return off
}

func (k *Kernel) complete(content map[string]any) map[string]any {
	code, _ := content["code"].(string)
	cursor := len([]rune(code))
	if c, ok := content["cursor_pos"].(float64); ok {
		cursor = int(c)
	}
	pos := byteOffset(code, cursor)
	lineStart := strings.LastIndexByte(code[:pos], '\n') + 1
	lineEnd := len(code)
	if i := strings.IndexByte(code[pos:], '\n'); i >= 0 {
		lineEnd = pos + i
	}
	head, matches := k.exec.Complete(code[lineStart:lineEnd], pos-lineStart)
	start := utf8.RuneCountInString(code[:lineStart+len(head)])
	if matches == nil {
		matches = []string{}
	}
	return map[string]any{"status": "ok", "matches": matches, "cursor_start": start, "cursor_end": cursor, "metadata": map[string]any{}}
}

func (k *Kernel) inspect(content map[string]any) map[string]any {
	code, _ := content["code"].(string)
	cursor := 0
	if c, ok := content["cursor_pos"].(float64); ok {
		cursor = int(c)
	}
	desc := k.exec.Inspect(code, byteOffset(code, cursor))
	if desc == "" {
		return map[string]any{"status": "ok", "found": false, "data": map[string]any{}, "metadata": map[string]any{}}
	}
	return map[string]any{"status": "ok", "found": true, "data": map[string]any{"text/plain": desc}, "metadata": map[string]any{}}
}

func (k *Kernel) historyItems() []any {
	items := make([]any, len(k.history))
	for i, h := range k.history {
		items[i] = []any{h[0], h[1], h[2]}
	}
	return items
}
