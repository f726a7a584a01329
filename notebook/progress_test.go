package notebook

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/repl/display"
)

type recordingSink struct {
	mu       sync.Mutex
	displays []display.Data
}

func (s *recordingSink) Stream(name, text string) {}
func (s *recordingSink) Display(d display.Data) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.displays = append(s.displays, d)
}

// A long cell shows one display with a display_id, updated in place with
// the solve's phase and progress, and at the end with the cell's time and
// the phase split of its solves.
func TestProgressDisplay(t *testing.T) {
	t.Setenv("OCLSOLVE_PROGRESS_AFTER", "0s")
	// Every change shown, so that a fast machine's short factorizations
	// are seen too.
	defer func(tick, update time.Duration) { progressTick, progressUpdate = tick, update }(progressTick, progressUpdate)
	progressTick, progressUpdate = 20*time.Millisecond, 0
	x, err := NewExecutor()
	if err != nil {
		t.Fatal(err)
	}
	var sink recordingSink
	_, err = x.Execute(`a, err := sparse.ReadFile("../../shared/matrices/nos3.mtx")
display.Check(err)
for i := 0; i < 3; i++ {
	_, _, err = solver.Run(a, nil, solver.Options{Method: "cholesky", Format: "sks", Variant: "thesis"})
	display.Check(err)
}`, &sink)
	if err != nil {
		t.Fatal(err)
	}
	ds := sink.displays
	if len(ds) < 2 {
		t.Fatalf("%d displays: %v", len(ds), ds)
	}
	id := ds[0].DisplayID
	if id == "" || ds[0].Update || !strings.Contains(ds[0].Bundle[display.MIMEHTML].(string), "<progress") {
		t.Fatalf("first display %+v", ds[0])
	}
	var texts []string
	for _, d := range ds[1:] {
		if d.DisplayID != id || !d.Update {
			t.Fatalf("display %+v is not an update of %s", d, id)
		}
		texts = append(texts, d.Text())
	}
	all := ds[0].Text() + "\n" + strings.Join(texts, "\n")
	if !strings.Contains(all, "factorize: ") || !strings.Contains(all, " of 960 columns, ") {
		t.Errorf("no factorization progress shown:\n%s", all)
	}
	last := texts[len(texts)-1]
	if !strings.HasPrefix(last, "ran ") || !strings.Contains(last, "solver: ") || !strings.Contains(last, "factorize ") || !strings.Contains(last, "(3 solves, ") {
		t.Errorf("final display %q", last)
	}

	// A quick cell shows nothing.
	t.Setenv("OCLSOLVE_PROGRESS_AFTER", "1h")
	sink = recordingSink{}
	if _, err := x.Execute(`1 + 1`, &sink); err != nil || len(sink.displays) != 0 {
		t.Fatalf("quick cell: %v, displays %v", err, sink.displays)
	}
}

// The headless runner keeps one output per display_id, replaced by its
// updates.
func TestRunnerDisplayUpdates(t *testing.T) {
	var c cellOutputs
	h := display.NewHandle()
	c.Display(display.Text("before"))
	c.Display(display.Data{Bundle: map[string]any{display.MIMEText: "1%"}, DisplayID: h.ID()})
	c.Display(display.Data{Bundle: map[string]any{display.MIMEText: "50%"}, DisplayID: h.ID(), Update: true})
	c.Display(display.Data{Bundle: map[string]any{display.MIMEText: "x"}, DisplayID: "unknown", Update: true})
	c.Display(display.Data{Bundle: map[string]any{display.MIMEText: "done"}, DisplayID: h.ID(), Update: true})
	outs := c.finish()
	if len(outs) != 2 {
		t.Fatalf("outputs %v", outs)
	}
	got := outs[1].(map[string]any)["data"].(map[string]any)[display.MIMEText]
	if fmt.Sprint(got) != "[done]" {
		t.Fatalf("updated output %v", got)
	}
}
