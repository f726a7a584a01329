package repl

// The interpreter's bindings are generated from the package list in
// internal/bindgen/packages.go; TestBindingsFresh checks they are current.
//go:generate go run ./internal/bindgen -o bindings
