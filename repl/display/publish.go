package display

import (
	"fmt"
	"os"
	"sync"
)

var (
	publishMu sync.Mutex
	publisher func(Data)
)

// SetPublisher installs the function that Show sends bundles to, and
// returns the previous one. Front ends call it: the notebook kernel
// publishes display_data messages, the terminal prints the text form.
// A nil publisher makes Show print the text form on standard output.
func SetPublisher(p func(Data)) (previous func(Data)) {
	publishMu.Lock()
	defer publishMu.Unlock()
	previous, publisher = publisher, p
	return previous
}

// Show displays v now, in the middle of a cell, instead of waiting for the
// cell's last value. In a notebook each call adds one output; in the
// terminal it prints the value's text form.
func Show(v any) {
	Publish(Render(v))
}

// Publish sends the bundle d as it is (DisplayID and Update included) to
// the front end: a notebook output, or its text on standard output in the
// terminal. An empty bundle is not sent.
func Publish(d Data) {
	if d.IsEmpty() {
		return
	}
	publishMu.Lock()
	p := publisher
	publishMu.Unlock()
	if p != nil {
		p(d)
		return
	}
	fmt.Fprintln(os.Stdout, d.Text())
}

// Handle is a display that later values replace in place, as Jupyter's
// display(..., display_id=True) and its update do: Show it once, then
// Update it as often as needed (a progress bar, a table filling up). In a
// notebook the one output changes; in the terminal each call prints the
// value's text.
type Handle struct{ id string }

var handles struct {
	sync.Mutex
	n int
}

// NewHandle returns a display handle with an identifier unique in this
// process and session.
func NewHandle() *Handle {
	handles.Lock()
	defer handles.Unlock()
	handles.n++
	return &Handle{id: fmt.Sprintf("oclsolve-%d-%d", os.Getpid(), handles.n)}
}

// ID is the handle's display_id.
func (h *Handle) ID() string { return h.id }

// Show publishes v as the handle's display.
func (h *Handle) Show(v any) {
	d := Render(v)
	d.DisplayID, d.Update = h.id, false
	Publish(d)
}

// Update replaces the handle's display with v.
func (h *Handle) Update(v any) {
	d := Render(v)
	d.DisplayID, d.Update = h.id, true
	Publish(d)
}
