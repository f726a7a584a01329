package notebook

import (
	"fmt"
	"html"
	"time"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/repl"
	"github.com/oclsolve/oclsolve/repl/display"
)

// A cell that runs longer than repl.ProgressAfter (2 s) shows an updating display:
// one output, replaced in place (display_data with a display_id, then
// update_display_data), with a progress bar and the phase of the solve
// under way (solver.Current: factorization levels or columns, CG's
// iteration and residual). When the cell ends the display becomes a line
// with the cell's time and the phase split of its solves, as :time prints.

// Ticks of the progress display: how often it looks, and at most how often
// it updates the front end (variables for the tests).
var (
	progressTick   = 250 * time.Millisecond
	progressUpdate = 500 * time.Millisecond
)

// showProgress starts the progress display of a cell, published through
// publish; the returned function ends it (and must be called once).
func showProgress(publish func(display.Data)) (stop func()) {
	after := repl.ProgressAfter()
	h := display.NewHandle()
	split0 := solver.Totals()
	start := time.Now()
	done, exited := make(chan struct{}), make(chan struct{})
	shown := false
	go func() {
		defer close(exited)
		tick := time.NewTicker(progressTick)
		defer tick.Stop()
		var last string
		var lastAt time.Time
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				el := now.Sub(start)
				if el < after {
					continue
				}
				p, ok := solver.Current()
				text := progressText(el, p, ok)
				if shown && (text == last || now.Sub(lastAt) < progressUpdate) {
					continue
				}
				d := progressBundle(text, p, ok)
				d.DisplayID, d.Update = h.ID(), shown
				publish(d)
				shown, last, lastAt = true, text, now
			}
		}
	}()
	return func() {
		close(done)
		<-exited
		if !shown {
			return
		}
		el := time.Since(start)
		text := fmt.Sprintf("ran %.1f s", el.Seconds())
		if d := solver.Totals().Sub(split0); d.Runs > 0 {
			text += "; solver: " + d.String()
		}
		publish(display.Data{Bundle: map[string]any{
			display.MIMEText: text,
			display.MIMEHTML: `<div class="oclsolve-progress"><code>` + html.EscapeString(text) + `</code></div>`,
		}, DisplayID: h.ID(), Update: true})
	}
}

// progressText is the display's line: "running 3.1 s: factorize: 12 of 30
// levels, 43%".
func progressText(el time.Duration, p solver.Progress, ok bool) string {
	s := fmt.Sprintf("running %.1f s", el.Seconds())
	if ok {
		s += ": " + p.String()
	}
	return s
}

// progressBundle draws the line under a progress bar (indeterminate when
// the fraction is unknown).
func progressBundle(text string, p solver.Progress, ok bool) display.Data {
	bar := `<progress style="width:320px"></progress>`
	if ok && p.Fraction >= 0 {
		bar = fmt.Sprintf(`<progress style="width:320px" max="100" value="%.0f"></progress>`, p.Percent())
	}
	return display.Data{Bundle: map[string]any{
		display.MIMEText: "[" + text + "]",
		display.MIMEHTML: `<div class="oclsolve-progress">` + bar + ` <code>` + html.EscapeString(text) + `</code></div>`,
	}}
}
