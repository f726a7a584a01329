package display

// Check stops a notebook cell or script when err is not nil: the cell
// fails with err's message and the line it is on, and the session keeps
// its state. It replaces the `if err != nil { panic(err) }` of study cells
// and is meant for interpreted code only; library code returns errors.
func Check(err error) {
	if err != nil {
		panic(err)
	}
}
