package notebook

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// executeWithin runs a cell and fails the test if its reply takes longer
// than limit; it returns the reply and what was published for it.
func (c *client) executeWithin(code string, limit time.Duration) (*received, []*received) {
	c.t.Helper()
	start := time.Now()
	h := c.send(c.shell, "execute_request", execute(code))
	reply, err := c.recv(c.shell, limit)
	if err != nil {
		c.t.Fatalf("%q: no reply within %v: %v", code, limit, err)
	}
	if reply.Parent.MsgID != h.MsgID {
		c.t.Fatalf("%q: reply to another request", code)
	}
	c.t.Logf("%q: %s after %v", code, reply.Content["status"], time.Since(start).Round(time.Millisecond))
	var pub []*received
	for {
		m, err := c.recv(c.iopub, 10*time.Second)
		if err != nil {
			c.t.Fatalf("%q: waiting for idle: %v", code, err)
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

func (c *client) wantError(reply *received, ename string, in ...string) {
	c.t.Helper()
	if reply.Content["status"] != "error" || reply.Content["ename"] != ename {
		c.t.Fatalf("want an %s error, got %v", ename, reply.Content)
	}
	v, _ := reply.Content["evalue"].(string)
	for _, s := range in {
		if !strings.Contains(v, s) {
			c.t.Fatalf("%s error %q does not say %q", ename, v, s)
		}
	}
	c.t.Logf("%s: %s", ename, v)
}

func (c *client) wantValue(code, want string) {
	c.t.Helper()
	reply, pub := c.executeWithin(code, 60*time.Second)
	r := find(pub, "execute_result")
	if reply.Content["status"] != "ok" || len(r) != 1 || r[0].Content["data"].(map[string]any)["text/plain"] != want {
		c.t.Fatalf("%q: %v, want %s", code, reply.Content, want)
	}
}

func (c *client) heartbeat() {
	c.t.Helper()
	c.hb.Send(zmq4.NewMsgString("ping"))
	got := make(chan error, 1)
	go func() {
		m, err := c.hb.Recv()
		if err == nil && string(m.Bytes()) != "ping" {
			err = errFake("bad echo")
		}
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			c.t.Fatalf("heartbeat: %v", err)
		}
	case <-time.After(5 * time.Second):
		c.t.Fatal("heartbeat: no answer within 5 s")
	}
}

type errFake string

func (e errFake) Error() string { return string(e) }

// TestKernelSurvivesCrashes drives a real kernel process (supervisor and
// worker, as `oclsolve kernel` runs) with the cells that used to hang it
// or kill it silently. Every cell must get an error reply naming the
// reason within a bounded time, the heartbeat must keep answering, and
// the kernel must go on working.
func TestKernelSurvivesCrashes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kernel and worker processes")
	}
	var klog syncBuffer
	c, done := startKernelIn(t, true, &klog)
	defer func() {
		if t.Failed() {
			t.Logf("kernel log:\n%s", klog.String())
		}
	}()
	c.request(c.shell, "kernel_info_request", map[string]any{})
	c.wantValue("kept := 7\nkept", "7")

	// Infinite recursion on the cell's own goroutine: stopped by the
	// engine's stack guard, the session keeps its state.
	reply, _ := c.executeWithin("func f(n int) int { return f(n+1) + 1 }\nf(0)", 60*time.Second)
	c.wantError(reply, "StackOverflow", "stack", "keeps its state")
	c.heartbeat()
	c.wantValue("kept", "7")

	// A panic in a goroutine the cell started kills the worker: the cell
	// fails with the panic's message and says the state was lost.
	reply, pub := c.executeWithin(`go func() { panic("boom in a goroutine") }()
time.Sleep(20 * time.Second)`, 60*time.Second)
	c.wantError(reply, "KernelDied", "panic: boom in a goroutine", "was lost")
	if len(find(pub, "error")) != 1 {
		t.Fatal("no error message published for the dead worker")
	}
	c.heartbeat()
	reply, _ = c.executeWithin("kept", 60*time.Second)
	if reply.Content["status"] != "error" {
		t.Fatalf("the state survived a dead worker? %v", reply.Content)
	}
	c.wantValue("1 + 1", "2")

	// Infinite recursion in a goroutine: the Go runtime aborts the worker
	// with a stack overflow (no guard can stop another goroutine).
	reply, _ = c.executeWithin(`func g(n int) int { return g(n+1) + 1 }
go func() { g(0) }()
time.Sleep(60 * time.Second)`, 90*time.Second)
	c.wantError(reply, "KernelDied", "stack overflow", "was lost")
	c.heartbeat()

	// A fatal runtime error (not a panic: no recover can catch it).
	reply, _ = c.executeWithin("import \"sync\"\nvar mu sync.Mutex\nmu.Unlock()", 60*time.Second)
	c.wantError(reply, "KernelDied", "fatal error: sync: unlock of unlocked mutex")

	// A goroutine that panics after its cell ended: the next cell is told.
	c.wantValue("go func() { time.Sleep(200 * time.Millisecond); panic(\"late\") }()\n3", "3")
	time.Sleep(3 * time.Second)
	reply, _ = c.executeWithin("4", 60*time.Second)
	c.wantError(reply, "KernelRestarted", "panic: late", "not run")
	c.wantValue("5", "5")

	// interrupt_request stops device work: a thesis Gauss-Jordan solve of
	// order 1500, one launch per column, answers within a second.
	c.wantValue(`import "github.com/oclsolve/oclsolve/afarray/solver"
func system(n int) (*afarray.Array, *afarray.Array) {
	d := mat.NewDense(n, n, nil)
	ones := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d.Set(i, j, 1/float64(1+i+j))
		}
		d.Set(i, i, float64(n))
		ones[i] = 1
	}
	a, _ := afarray.FromDense(d)
	b, _ := afarray.FromFloat64s(ones)
	return a, b
}
a, b := system(1500)
7`, "7")
	h := c.send(c.shell, "execute_request", execute("x, err := solver.GaussJordan(a, b, solver.Thesis)\nerr"))
	time.Sleep(1500 * time.Millisecond)
	start := time.Now()
	c.request(c.control, "interrupt_request", map[string]any{})
	reply, err := c.recv(c.shell, 30*time.Second)
	if err != nil || reply.Parent.MsgID != h.MsgID {
		t.Fatalf("interrupted solve: %v %v", reply, err)
	}
	if reply.Content["status"] == "ok" {
		t.Logf("the solve finished before the interrupt")
	} else {
		c.wantError(reply, "Interrupted")
		t.Logf("interrupt_request to the reply of the interrupted solve: %v", time.Since(start))
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the interrupted solve answered after %v", d)
		}
	}
	c.wantValue("6 * 7", "42")

	// A cell blocked where interrupts cannot reach (a compiled call): the
	// first interrupt is not enough, a second one after two seconds stops
	// the worker.
	h = c.send(c.shell, "execute_request", execute("time.Sleep(time.Hour)"))
	time.Sleep(500 * time.Millisecond)
	c.request(c.control, "interrupt_request", map[string]any{})
	time.Sleep(2500 * time.Millisecond)
	c.request(c.control, "interrupt_request", map[string]any{})
	reply, err = c.recv(c.shell, 20*time.Second)
	if err != nil || reply.Parent.MsgID != h.MsgID {
		t.Fatalf("blocked cell after two interrupts: %v %v", reply, err)
	}
	c.wantError(reply, "KernelDied", "ignored interrupts")
	c.wantValue("6", "6")

	reply, _ = c.request(c.control, "shutdown_request", map[string]any{"restart": false})
	if reply.Content["status"] != "ok" {
		t.Fatalf("shutdown_reply: %v", reply.Content)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kernel process: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the kernel process did not exit after shutdown_request")
	}
}
