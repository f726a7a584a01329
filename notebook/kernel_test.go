package notebook

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// client is a minimal Jupyter front end for tests.
type client struct {
	t                     *testing.T
	signer                signer
	shell, control, iopub zmq4.Socket
	hb                    zmq4.Socket
	session               string
	chans                 map[zmq4.Socket]chan *received
}

type received struct {
	Header  header
	Parent  header
	Content map[string]any
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startKernel serves a kernel on loopback ports and connects a client.
// The kernel runs in this process on an in-process Executor.
func startKernel(t *testing.T) (*client, chan error) {
	t.Helper()
	return startKernelIn(t, false, nil)
}

// kernelProcessEnv makes this test binary a kernel process: TestMain
// serves the connection file it names, with a Supervisor as oclsolve
// kernel does.
const kernelProcessEnv = "OCLSOLVE_TEST_KERNEL"

// startKernelIn serves a kernel on loopback ports and connects a client.
// With process set the kernel is a separate process (this test binary, see
// kernelProcessEnv) whose interpreter runs in a supervised worker, as
// `oclsolve kernel` runs; its log goes to kernelLog, and done receives its
// exit.
func startKernelIn(t *testing.T, process bool, kernelLog *syncBuffer) (*client, chan error) {
	t.Helper()
	conn := &ConnectionInfo{
		Transport: "tcp", IP: "127.0.0.1", Key: "a-secret-key", SignatureScheme: "hmac-sha256",
		ShellPort: freePort(t), ControlPort: freePort(t), StdinPort: freePort(t), IOPubPort: freePort(t), HBPort: freePort(t),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	if process {
		path := filepath.Join(t.TempDir(), "connection.json")
		b, _ := json.Marshal(conn)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), kernelProcessEnv+"="+path)
		cmd.Stderr = kernelLog
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill() })
	} else {
		x, err := NewExecutor()
		if err != nil {
			t.Fatal(err)
		}
		go func() { done <- ServeKernel(ctx, conn, x) }()
	}

	c := &client{t: t, signer: signer{key: []byte(conn.Key)}, session: newID()}
	c.shell = zmq4.NewDealer(ctx)
	c.control = zmq4.NewDealer(ctx)
	c.iopub = zmq4.NewSub(ctx)
	c.hb = zmq4.NewReq(ctx)
	t.Cleanup(func() {
		cancel()
		for _, s := range []zmq4.Socket{c.shell, c.control, c.iopub, c.hb} {
			s.Close()
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for _, d := range []struct {
		s    zmq4.Socket
		port int
	}{{c.shell, conn.ShellPort}, {c.control, conn.ControlPort}, {c.iopub, conn.IOPubPort}, {c.hb, conn.HBPort}} {
		for {
			err := d.s.Dial(conn.endpoint(d.port))
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("dialing the kernel: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	c.iopub.SetOption(zmq4.OptionSubscribe, "")
	c.chans = map[zmq4.Socket]chan *received{}
	for _, s := range []zmq4.Socket{c.shell, c.control, c.iopub} {
		c.chans[s] = c.reader(s)
	}
	time.Sleep(200 * time.Millisecond) // let the subscription reach the kernel
	return c, done
}

func (c *client) send(sock zmq4.Socket, msgType string, content any) header {
	c.t.Helper()
	h := newHeader(c.session, msgType)
	frames, err := c.signer.encode(nil, h, nil, nil, content)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := sock.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
	return h
}

// reader delivers the messages of sock, decoded, on a channel: one reader
// per socket, so that a receive that timed out cannot swallow a later
// message.
func (c *client) reader(sock zmq4.Socket) chan *received {
	ch := make(chan *received, 100)
	go func() {
		for {
			raw, err := sock.Recv()
			if err != nil {
				close(ch)
				return
			}
			m, err := c.signer.decode(raw.Frames)
			if err != nil {
				continue
			}
			r := &received{Header: m.Header}
			json.Unmarshal(m.Parent, &r.Parent)
			json.Unmarshal(m.Content, &r.Content)
			ch <- r
		}
	}()
	return ch
}

// recv returns the next message of sock, failing after timeout.
func (c *client) recv(sock zmq4.Socket, timeout time.Duration) (*received, error) {
	select {
	case r, ok := <-c.chans[sock]:
		if !ok {
			return nil, errors.New("socket closed")
		}
		return r, nil
	case <-time.After(timeout):
		return nil, errors.New("timeout")
	}
}

// request sends a request and returns its reply and the IOPub messages
// published for it until the kernel went idle.
func (c *client) request(sock zmq4.Socket, msgType string, content any) (*received, []*received) {
	c.t.Helper()
	h := c.send(sock, msgType, content)
	reply, err := c.recv(sock, 30*time.Second)
	if err != nil {
		c.t.Fatalf("%s: no reply: %v", msgType, err)
	}
	if reply.Parent.MsgID != h.MsgID {
		c.t.Fatalf("%s: reply's parent is %s, want %s", msgType, reply.Parent.MsgID, h.MsgID)
	}
	var pub []*received
	for {
		m, err := c.recv(c.iopub, 10*time.Second)
		if err != nil {
			c.t.Fatalf("%s: waiting for idle: %v", msgType, err)
		}
		if m.Parent.MsgID != h.MsgID {
			continue
		}
		pub = append(pub, m)
		if m.Header.MsgType == "status" && m.Content["execution_state"] == "idle" {
			return reply, pub
		}
	}
}

func execute(code string) map[string]any {
	return map[string]any{"code": code, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false}
}

func find(pub []*received, msgType string) []*received {
	var out []*received
	for _, m := range pub {
		if m.Header.MsgType == msgType {
			out = append(out, m)
		}
	}
	return out
}

func TestKernelProtocol(t *testing.T) {
	t.Run("in-process", func(t *testing.T) { testKernelProtocol(t, false) })
	// As `oclsolve kernel` runs: a kernel process whose cells run in a
	// supervised worker process.
	t.Run("worker", func(t *testing.T) {
		if testing.Short() {
			t.Skip("starts kernel and worker processes")
		}
		testKernelProtocol(t, true)
	})
}

func testKernelProtocol(t *testing.T, process bool) {
	var klog syncBuffer
	c, done := startKernelIn(t, process, &klog)
	defer func() {
		if t.Failed() && process {
			t.Logf("kernel log:\n%s", klog.String())
		}
	}()

	reply, _ := c.request(c.shell, "kernel_info_request", map[string]any{})
	li, _ := reply.Content["language_info"].(map[string]any)
	if reply.Content["protocol_version"] != protocolVersion || li["name"] != "go" {
		t.Fatalf("kernel_info_reply: %v", reply.Content)
	}

	// Heartbeat echoes.
	c.hb.Send(zmq4.NewMsgString("ping"))
	if m, err := c.hb.Recv(); err != nil || string(m.Bytes()) != "ping" {
		t.Fatalf("heartbeat: %v %q", err, m.Bytes())
	}

	// Execute: stdout from Go (C output: TestCaptureReachesCOutput), stderr, a mid-cell display, and the last value.
	reply, pub := c.request(c.shell, "execute_request", execute(
		"import \"os\"\nfmt.Println(\"from Go\")\nos.Stdout.WriteString(\"from os.Stdout\\n\")\nfmt.Fprintln(os.Stderr, \"to stderr\")\ndisplay.Show(display.HTML(\"<i>mid</i>\"))\nanswer := 42\nanswer"))
	if reply.Content["status"] != "ok" || reply.Content["execution_count"] != 1.0 {
		t.Fatalf("execute_reply: %v", reply.Content)
	}
	var stdout, stderr string
	for _, m := range find(pub, "stream") {
		if m.Content["name"] == "stdout" {
			stdout += m.Content["text"].(string)
		} else {
			stderr += m.Content["text"].(string)
		}
	}
	if stdout != "from Go\nfrom os.Stdout\n" || stderr != "to stderr\n" {
		t.Fatalf("streams: stdout %q, stderr %q", stdout, stderr)
	}
	if d := find(pub, "display_data"); len(d) != 1 || d[0].Content["data"].(map[string]any)["text/html"] != "<i>mid</i>" {
		t.Fatalf("display_data: %v", d)
	}
	if r := find(pub, "execute_result"); len(r) != 1 || r[0].Content["data"].(map[string]any)["text/plain"] != "42" {
		t.Fatalf("execute_result: %v", r)
	}
	if len(find(pub, "execute_input")) != 1 {
		t.Fatal("no execute_input")
	}

	// A failing cell reports the error, and the state survives it.
	reply, pub = c.request(c.shell, "execute_request", execute(`panic("cell failed")`))
	if reply.Content["status"] != "error" || len(find(pub, "error")) != 1 || !strings.Contains(reply.Content["evalue"].(string), "cell failed") {
		t.Fatalf("failing cell: %v", reply.Content)
	}
	reply, pub = c.request(c.shell, "execute_request", execute("answer + 1"))
	if r := find(pub, "execute_result"); reply.Content["status"] != "ok" || len(r) != 1 || r[0].Content["data"].(map[string]any)["text/plain"] != "43" {
		t.Fatalf("state after a failing cell: %v", reply.Content)
	}

	// A message signed with another key is dropped, never executed.
	forged := c.signer
	c.signer = signer{key: []byte("not-the-key")}
	c.send(c.shell, "execute_request", execute("answer = 0"))
	c.signer = forged
	if m, err := c.recv(c.shell, 500*time.Millisecond); err == nil {
		t.Fatalf("forged message got a reply: %v", m)
	}
	// ... and so is an unsigned one.
	h, _ := json.Marshal(newHeader(c.session, "execute_request"))
	body, _ := json.Marshal(execute("answer = 0"))
	c.shell.Send(zmq4.NewMsgFrom(delimiter, []byte(""), h, []byte("{}"), []byte("{}"), body))
	if m, err := c.recv(c.shell, 500*time.Millisecond); err == nil {
		t.Fatalf("unsigned message got a reply: %v", m)
	}
	_, pub = c.request(c.shell, "execute_request", execute("answer"))
	if r := find(pub, "execute_result"); len(r) != 1 || r[0].Content["data"].(map[string]any)["text/plain"] != "42" {
		t.Fatalf("a forged or unsigned message ran: answer is %v", r)
	}

	// Completion, inspection, completeness.
	code := "x := 1\nv := mat.NewDen"
	reply, _ = c.request(c.shell, "complete_request", map[string]any{"code": code, "cursor_pos": len(code)})
	matches, _ := reply.Content["matches"].([]any)
	if len(matches) == 0 || matches[0] != "NewDense" || reply.Content["cursor_start"] != float64(len(code)-len("NewDen")) {
		t.Fatalf("complete_reply: %v", reply.Content)
	}
	reply, _ = c.request(c.shell, "inspect_request", map[string]any{"code": "mat.NewDense", "cursor_pos": 6, "detail_level": 0})
	if reply.Content["found"] != true {
		t.Fatalf("inspect_reply: %v", reply.Content)
	}
	reply, _ = c.request(c.shell, "is_complete_request", map[string]any{"code": "func f() {"})
	if reply.Content["status"] != "incomplete" {
		t.Fatalf("is_complete_reply: %v", reply.Content)
	}
	reply, _ = c.request(c.shell, "history_request", map[string]any{"hist_access_type": "tail", "n": 10})
	if h, _ := reply.Content["history"].([]any); len(h) < 3 {
		t.Fatalf("history_reply: %v", reply.Content)
	}
	reply, _ = c.request(c.shell, "comm_info_request", map[string]any{})
	if reply.Content["status"] != "ok" {
		t.Fatalf("comm_info_reply: %v", reply.Content)
	}

	// Interrupt on the control channel stops a running cell.
	h2 := c.send(c.shell, "execute_request", execute("n := 0\nfor {\n\tn++\n}"))
	time.Sleep(500 * time.Millisecond)
	ireply, _ := c.request(c.control, "interrupt_request", map[string]any{})
	if ireply.Content["status"] != "ok" {
		t.Fatalf("interrupt_reply: %v", ireply.Content)
	}
	r, err := c.recv(c.shell, 10*time.Second)
	if err != nil || r.Parent.MsgID != h2.MsgID || r.Content["status"] != "error" || r.Content["ename"] != "Interrupted" {
		t.Fatalf("interrupted cell's reply: %v %v", r, err)
	}

	reply, _ = c.request(c.control, "shutdown_request", map[string]any{"restart": false})
	if reply.Content["status"] != "ok" {
		t.Fatalf("shutdown_reply: %v", reply.Content)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the kernel did not stop after shutdown_request")
	}
}

func TestReadConnectionFile(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "conn.json")
		os.WriteFile(p, []byte(s), 0o600)
		return p
	}
	ok := `{"transport":"tcp","ip":"127.0.0.1","shell_port":1,"control_port":2,"stdin_port":3,"iopub_port":4,"hb_port":5,"key":"k","signature_scheme":"hmac-sha256"}`
	ci, err := ReadConnectionFile(write(ok))
	if err != nil || ci.endpoint(ci.ShellPort) != "tcp://127.0.0.1:1" {
		t.Fatalf("good connection file: %v %v", ci, err)
	}
	ci.Transport = "ipc"
	if ci.endpoint(4) != "ipc://127.0.0.1-4" {
		t.Fatalf("ipc endpoint %s", ci.endpoint(4))
	}
	for _, bad := range []string{
		strings.Replace(ok, `"key":"k"`, `"key":""`, 1),
		strings.Replace(ok, "hmac-sha256", "hmac-md5", 1),
		strings.Replace(ok, `"transport":"tcp"`, `"transport":"udp"`, 1),
		strings.Replace(ok, `"ip":"127.0.0.1"`, `"ip":""`, 1),
		`{"key":`,
	} {
		if _, err := ReadConnectionFile(write(bad)); !errors.Is(err, ErrConnection) {
			t.Errorf("ReadConnectionFile(%s) = %v, want ErrConnection", bad, err)
		}
	}
}

func TestInstallKernelSpec(t *testing.T) {
	dir := t.TempDir()
	spec, err := InstallKernelSpec(PrefixKernelsDir(dir), "/opt/bin/oclsolve")
	if err != nil {
		t.Fatal(err)
	}
	if spec != filepath.Join(dir, "share", "jupyter", "kernels", "oclsolve") {
		t.Fatalf("kernelspec in %s", spec)
	}
	b, _ := os.ReadFile(filepath.Join(spec, "kernel.json"))
	var ks struct {
		Argv     []string `json:"argv"`
		Language string   `json:"language"`
	}
	if err := json.Unmarshal(b, &ks); err != nil || ks.Language != "go" || strings.Join(ks.Argv, " ") != "/opt/bin/oclsolve kernel {connection_file}" {
		t.Fatalf("kernel.json: %s (%v)", b, err)
	}
	if _, err := InstallKernelSpec(dir, "relative/oclsolve"); err == nil {
		t.Fatal("a relative executable path was accepted")
	}
}
