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
	d := Render(v)
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
