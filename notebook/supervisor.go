package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/oclsolve/oclsolve/repl/display"
)

// Supervisor is a Session whose interpreter runs in a worker process (the
// same executable, see RunWorkerIfChild). Whatever kills the worker — a
// stack overflow in a goroutine a cell started, a panic in such a
// goroutine, a fatal runtime error, a crash in a device driver, the
// kernel's out-of-memory killer — cannot take the supervisor with it: the
// cell that was running fails with the reason the runtime printed, a fresh
// session starts, and the error says that the state was lost. The Jupyter
// kernel keeps its sockets and heartbeat in the supervisor, so it never
// stops answering.
type Supervisor struct {
	exe string
	log *log.Logger

	mu   sync.Mutex // serialises Execute and restarts
	cur  atomic.Pointer[worker]
	lost string // why the previous worker died between cells, told by the next Execute
}

// StartupTimeout bounds how long a worker may take to start its session.
const StartupTimeout = 2 * time.Minute

// escalateAfter is how long a cell may ignore an interrupt before a second
// interrupt stops the worker process instead.
const escalateAfter = 2 * time.Second

// ErrWorker marks a failure of the worker process itself.
var ErrWorker = errors.New("notebook: worker process failed")

// NewSupervisor starts a worker process running the current executable and
// waits until its session is ready. logger receives what the worker prints
// between cells and why a worker died; nil means standard error.
func NewSupervisor(logger *log.Logger) (*Supervisor, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWorker, err)
	}
	if logger == nil {
		logger = log.New(os.Stderr, "oclsolve kernel: ", log.LstdFlags)
	}
	s := &Supervisor{exe: exe, log: logger}
	w, err := s.startWorker()
	if err != nil {
		return nil, err
	}
	s.cur.Store(w)
	return s, nil
}

// worker is one worker process.
type worker struct {
	cmd    *exec.Cmd
	reqW   *os.File
	encMu  sync.Mutex
	enc    *json.Encoder
	nextID atomic.Int64
	banner string

	pendMu  sync.Mutex
	pending map[int64]chan workerEvent

	out, err *pump

	dead    chan struct{} // closed when the process is gone and its output read
	reason  string        // why it ended; set before dead is closed
	killed  atomic.Value  // string: why the supervisor killed it, if it did
	closing atomic.Bool   // Close asked it to end

	interruptedAt atomic.Int64 // unix nanoseconds of the first interrupt of the running cell, or 0
	cellID        atomic.Int64 // the running execute request, or 0
}

func (s *Supervisor) startWorker() (*worker, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWorker, err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, fmt.Errorf("%w: %v", ErrWorker, err)
	}
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	// Large pipes: the runtime's dying words must never wait for a reader.
	for _, f := range []*os.File{outR, errR} {
		if c, err := f.SyscallConn(); err == nil {
			c.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
		}
	}
	cmd := exec.Command(s.exe)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	if os.Getenv("GOTRACEBACK") == "" {
		// A dying worker's Go stacks are the interpreter's internals,
		// noise in a notebook; the runtime's first lines say what
		// happened. GOTRACEBACK=single or all shows them.
		cmd.Env = append(cmd.Env, "GOTRACEBACK=none")
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.ExtraFiles = []*os.File{reqR, evW}
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{reqR, reqW, evR, evW, outR, outW, errR, errW} {
			f.Close()
		}
		return nil, fmt.Errorf("%w: starting %s: %v", ErrWorker, s.exe, err)
	}
	for _, f := range []*os.File{reqR, evW, outW, errW} {
		f.Close()
	}
	w := &worker{
		cmd: cmd, reqW: reqW, enc: json.NewEncoder(reqW),
		pending: map[int64]chan workerEvent{},
		dead:    make(chan struct{}),
	}
	w.out = newPump("stdout", outR, s.log)
	w.err = newPump("stderr", errR, s.log)
	ready := make(chan workerEvent, 1)
	w.pending[0] = ready
	go w.readEvents(evR)
	go func() {
		waitErr := cmd.Wait()
		// The pipes reach end of file once every copy of the write ends
		// is closed; a grandchild holding one must not block this forever.
		w.out.wait(2 * time.Second)
		w.err.wait(2 * time.Second)
		w.reason = exitReason(waitErr, w.err.verdicts(), w.killed.Load())
		if !w.closing.Load() || waitErr != nil {
			s.log.Printf("worker %d ended: %s", cmd.Process.Pid, w.reason)
		}
		close(w.dead)
	}()
	select {
	case ev := <-ready:
		w.banner = ev.Text
		return w, nil
	case <-w.dead:
		return nil, fmt.Errorf("%w: the session did not start: %s", ErrWorker, w.reason)
	case <-time.After(StartupTimeout):
		w.kill("it did not start within " + StartupTimeout.String())
		<-w.dead
		return nil, fmt.Errorf("%w: the session did not start within %v", ErrWorker, StartupTimeout)
	}
}

// readEvents hands each event to the request waiting for it.
func (w *worker) readEvents(r *os.File) {
	defer r.Close()
	dec := json.NewDecoder(r)
	for {
		var ev workerEvent
		if err := dec.Decode(&ev); err != nil {
			return
		}
		w.pendMu.Lock()
		ch := w.pending[ev.ID]
		if ev.Ev != "display" {
			delete(w.pending, ev.ID)
		}
		w.pendMu.Unlock()
		if ch != nil {
			ch <- ev
		}
	}
}

// request sends a request and returns the channel its events arrive on.
func (w *worker) request(op, code string, pos int) (int64, chan workerEvent, error) {
	id := w.nextID.Add(1)
	ch := make(chan workerEvent, 16)
	w.pendMu.Lock()
	w.pending[id] = ch
	w.pendMu.Unlock()
	if err := w.send(workerRequest{ID: id, Op: op, Code: code, Pos: pos}); err != nil {
		w.pendMu.Lock()
		delete(w.pending, id)
		w.pendMu.Unlock()
		return 0, nil, err
	}
	return id, ch, nil
}

func (w *worker) send(req workerRequest) error {
	w.encMu.Lock()
	defer w.encMu.Unlock()
	return w.enc.Encode(req)
}

func (w *worker) isDead() bool {
	select {
	case <-w.dead:
		return true
	default:
		return false
	}
}

// kill stops the process at once, recording why.
func (w *worker) kill(why string) {
	w.killed.CompareAndSwap(nil, why)
	w.cmd.Process.Kill()
}

// syncStreams waits until everything the worker wrote before its last
// event has been delivered: the worker flushes and writes its output
// before the event, so at that point it is in the pipes or already read.
func (w *worker) syncStreams() {
	w.out.sync()
	w.err.sync()
}

// current returns the running worker, starting one if the last has died.
// The caller holds s.mu.
func (s *Supervisor) current() (*worker, error) {
	w := s.cur.Load()
	if w != nil && !w.isDead() {
		return w, nil
	}
	if w != nil && s.lost == "" {
		s.lost = fmt.Sprintf("the interpreter process died after the previous cell: %s", w.reason)
	}
	nw, err := s.startWorker()
	if err != nil {
		return nil, err
	}
	s.cur.Store(nw)
	return nw, nil
}

// lostState is the sentence every report of a dead worker ends with.
const lostState = "Every variable, function and import of the session was lost; a fresh session has started."

// Execute runs a cell in the worker. If the worker dies while it runs, or
// died since the previous cell, the error says why and that the session's
// state was lost; the next cell runs in a fresh session.
func (s *Supervisor) Execute(code string, sink Sink) (*display.Data, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.current()
	if err != nil {
		return nil, &CellError{Name: "KernelError", Value: err.Error(), Traceback: []string{err.Error()}}
	}
	if s.lost != "" {
		msg := s.lost + ". " + lostState + " This cell was not run."
		s.lost = ""
		return nil, &CellError{Name: "KernelRestarted", Value: msg, Traceback: []string{"KernelRestarted: " + msg}}
	}
	w.out.setSink(sink)
	w.err.setSink(sink)
	defer func() {
		w.out.setSink(nil)
		w.err.setSink(nil)
	}()
	id, ch, err := w.request("execute", code, 0)
	if err == nil {
		w.interruptedAt.Store(0)
		w.cellID.Store(id)
		defer w.cellID.Store(0)
	}
	for err == nil {
		var ev workerEvent
		select {
		case ev = <-ch:
		case <-w.dead:
			select {
			case ev = <-ch: // the answer came just before the end
			default:
				err = errors.New("dead")
			}
		}
		if err != nil {
			break
		}
		w.syncStreams()
		if ev.Ev == "display" {
			if ev.Data != nil {
				sink.Display(*ev.Data)
			}
			continue
		}
		if ev.Error != nil {
			return nil, ev.Error
		}
		return ev.Data, nil
	}
	<-w.dead
	msg := "the interpreter process died while running this cell: " + w.reason + ". " + lostState
	s.log.Printf("%s", msg)
	if nw, err := s.startWorker(); err == nil {
		s.cur.Store(nw)
	} else {
		msg += " (Starting it failed: " + err.Error() + "; the next cell tries again.)"
	}
	return nil, &CellError{Name: "KernelDied", Value: msg, Traceback: []string{"KernelDied: " + msg}}
}

// Interrupt asks the worker to stop the running cell. A second interrupt,
// escalateAfter or more after a first one that the cell ignored (code
// blocked outside the interpreter's reach), stops the worker process
// itself: the cell then fails saying the state was lost.
func (s *Supervisor) Interrupt() {
	w := s.cur.Load()
	if w == nil || w.isDead() {
		return
	}
	w.send(workerRequest{Op: "interrupt"})
	if w.cellID.Load() == 0 {
		return
	}
	now := time.Now().UnixNano()
	if first := w.interruptedAt.Load(); first == 0 {
		w.interruptedAt.CompareAndSwap(0, now)
	} else if time.Duration(now-first) >= escalateAfter {
		w.kill(fmt.Sprintf("the cell ignored interrupts for %.1f s, so the interpreter process was stopped", time.Duration(now-first).Seconds()))
	}
}

// ask sends a request that needs a short answer and waits a bounded time.
func (s *Supervisor) ask(op, code string, pos int) workerEvent {
	w := s.cur.Load()
	if w == nil || w.isDead() {
		return workerEvent{}
	}
	_, ch, err := w.request(op, code, pos)
	if err != nil {
		return workerEvent{}
	}
	select {
	case ev := <-ch:
		return ev
	case <-w.dead:
	case <-time.After(5 * time.Second):
	}
	return workerEvent{}
}

// Complete returns the worker's completions for line at byte offset pos.
func (s *Supervisor) Complete(line string, pos int) (string, []string) {
	ev := s.ask("complete", line, pos)
	return ev.Head, ev.Matches
}

// Inspect returns the worker's description of the name at pos.
func (s *Supervisor) Inspect(code string, pos int) string { return s.ask("inspect", code, pos).Text }

// Banner is the worker session's greeting.
func (s *Supervisor) Banner() string {
	if w := s.cur.Load(); w != nil {
		return w.banner
	}
	return ""
}

// Close ends the worker: it exits when its request pipe closes, and is
// killed if it has not within two seconds (a cell still running).
func (s *Supervisor) Close() error {
	w := s.cur.Load()
	if w == nil {
		return nil
	}
	w.closing.Store(true)
	w.reqW.Close()
	select {
	case <-w.dead:
	case <-time.After(2 * time.Second):
		w.kill("the session was closed")
		<-w.dead
	}
	return nil
}

// exitReason says why a worker ended, from its exit status and the lines
// in which the Go runtime said why it aborted ("panic: ...", "fatal error:
// ...").
func exitReason(waitErr error, lines []string, killed any) string {
	if why, ok := killed.(string); ok && why != "" {
		return why
	}
	status := "it exited normally"
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = "it was killed by signal " + ws.Signal().String()
			if ws.Signal() == syscall.SIGKILL {
				status += " (out of memory?)"
			}
		} else {
			status = fmt.Sprintf("exit status %d", ee.ExitCode())
		}
	} else if waitErr != nil {
		status = waitErr.Error()
	}
	if len(lines) == 0 {
		return status
	}
	if len(lines) > 4 {
		lines = lines[:4]
	}
	return strings.Join(lines, " / ") + " (" + status + ")"
}

// pump forwards one of the worker's output streams to the sink of the
// running cell, or to the log between cells, and keeps the lines that say
// why the runtime aborted, for exitReason.
type pump struct {
	name string
	r    *os.File
	log  *log.Logger

	mu      sync.Mutex // held while a chunk is delivered; guards sink, line and reasons
	sink    Sink
	line    []byte   // the unfinished last line
	reasons []string // the runtime's verdict lines seen since the sink last changed
	done    chan struct{}
}

// maxReasons bounds the verdict lines kept: the runtime prints one or two.
const maxReasons = 8

func newPump(name string, r *os.File, logger *log.Logger) *pump {
	p := &pump{name: name, r: r, log: logger, done: make(chan struct{})}
	go p.run()
	return p
}

func (p *pump) setSink(s Sink) {
	p.mu.Lock()
	p.sink = s
	if s != nil {
		p.reasons = nil
	}
	p.mu.Unlock()
}

// scan keeps the lines of b in which the Go runtime says why it is
// aborting the process ("panic: ...", "fatal error: ..."): they come
// first, before a stack trace that may be megabytes long.
func (p *pump) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(p.line) < 4096 {
				p.line = append(p.line, b...)
			}
			return
		}
		p.line = append(p.line, b[:i]...)
		b = b[i+1:]
		if l := strings.TrimSpace(string(p.line)); isVerdict(l) && len(p.reasons) < maxReasons {
			p.reasons = append(p.reasons, l)
		}
		p.line = p.line[:0]
	}
}

func isVerdict(l string) bool {
	for _, prefix := range []string{"panic: ", "fatal error: ", "runtime: goroutine stack exceeds", "[signal ", "SIGSEGV", "SIGBUS", "SIGILL", "SIGABRT", "SIGFPE"} {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func (p *pump) run() {
	defer close(p.done)
	defer p.r.Close()
	pumpRunes(p.r, &p.mu, p.scan, p.deliver)
}

// deliver hands text to the cell's sink, or logs it. The caller holds p.mu.
func (p *pump) deliver(text string) {
	if p.sink != nil {
		p.sink.Stream(p.name, text)
		return
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		p.log.Printf("worker %s: %s", p.name, l)
	}
}

// sync waits until the pipe holds nothing unread and no chunk is being
// delivered, for a second at most.
func (p *pump) sync() {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		n, err := -1, error(nil)
		if c, cerr := p.r.SyscallConn(); cerr == nil {
			c.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
		}
		if err != nil || n <= 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.mu.Lock()
	p.mu.Unlock()
}

// wait waits for end of file, for d at most.
func (p *pump) wait(d time.Duration) {
	select {
	case <-p.done:
	case <-time.After(d):
	}
}

// verdicts returns the runtime's verdict lines seen lately.
func (p *pump) verdicts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := strings.TrimSpace(string(p.line)); isVerdict(l) && len(p.reasons) < maxReasons {
		return append(append([]string(nil), p.reasons...), l)
	}
	return append([]string(nil), p.reasons...)
}
