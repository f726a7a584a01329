package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"sort"
	"strings"

	"github.com/cosmos72/gomacro/fast"
	xr "github.com/cosmos72/gomacro/xreflect"
)

// Untyped string constants of compiled named string types.
//
// gomacro cannot convert an untyped string constant to a named string type
// compiled into the binary: solver.Options{Method: "cg"}, solver.Method("cg")
// and var m solver.Method = "cg" all panic with "reflect.Value.Convert:
// value of type reflect.Value cannot be converted to type solver.Method".
// Its untyped.Lit.Convert stores the reflect.Value of the converted string
// in its interface{} result, instead of the value, whenever the target's
// reflect type is not string itself (an interpreted named type is a plain
// string to reflect, which is why `type T string` works); the pinned
// version and upstream's master have the same code. It converts a *typed*
// string constant correctly: solver.Method(string("cg")) works.
//
// So before a cell runs, namedStringLits finds the untyped string literals
// whose type the context fixes to such a named type — a field, element or
// key of a composite literal of a compiled type, the operand of a
// conversion, the value of a var declaration with that type, the right side
// of an assignment to a field of a variable whose type is known (a session
// variable, or one the cell declares from a composite literal or with a
// type), an argument of a package's function or of such a variable's
// method — and rewrites each as a conversion of a typed constant through
// an alias the session declares for the type: "cg" becomes
// _oclsolveStr1(string("cg")), the same constant of the same type.
// Elsewhere (an argument of a function value, a method of a call's result)
// the typed constants (solver.MethodCG) serve.

// strAliasPrefix names the aliases the session declares for named string
// types.
const strAliasPrefix = "_oclsolveStr"

// fixNamedStringLits returns src with the literals described above
// rewritten; src unchanged when it has none or does not parse.
func (e *Engine) fixNamedStringLits(src string) (out string) {
	if !strings.ContainsAny(src, "\"`") {
		return src
	}
	out = src
	defer func() {
		if recover() != nil {
			out = src // a parse error: the interpreter reports it in its words
		}
	}()
	g := &e.ir.Comp.Globals
	nodes := g.ParseBytes([]byte(src))
	f := &litFixer{e: e, offset: func(p token.Pos) int { return g.Fileset.Position(p).Offset }, src: src}
	local := e.localTypes(nodes)
	for _, n := range nodes {
		ast.Inspect(n, func(n ast.Node) bool {
			f.inspect(n, local)
			return true
		})
	}
	return f.apply()
}

// litFixer collects the rewrites of one cell's literals.
type litFixer struct {
	e      *Engine
	offset func(token.Pos) int // in src
	src    string
	edits  []litEdit
}

// litEdit replaces src[off:end] by text.
type litEdit struct {
	off, end int
	text     string
}

// localTypes returns the types of the cell's variables declared from a
// composite literal or with a type, for assignments to their fields
// (o.Method = "cg"): the cell has not compiled yet, so the interpreter
// does not know them.
func (e *Engine) localTypes(nodes []ast.Node) map[string]xr.Type {
	local := map[string]xr.Type{}
	for _, n := range nodes {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
					for i, l := range n.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							if t := e.litType(n.Rhs[i]); t != nil {
								local[id.Name] = t
							}
						}
					}
				}
			case *ast.ValueSpec:
				if n.Type != nil {
					if t := e.typeOf(n.Type); t != nil {
						for _, id := range n.Names {
							local[id.Name] = t
						}
					}
				}
			}
			return true
		})
	}
	return local
}

// inspect finds the literals of node n whose type the context fixes.
func (f *litFixer) inspect(n ast.Node, local map[string]xr.Type) {
	e := f.e
	switch n := n.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) {
			for i, r := range n.Rhs {
				if lit, ok := r.(*ast.BasicLit); ok {
					f.fix(lit, e.exprType(n.Lhs[i], local))
				}
			}
		}
	case *ast.CompositeLit:
		if n.Type != nil {
			f.visitLit(n, e.typeOf(n.Type))
		}
	case *ast.CallExpr:
		if !hasStringLit(n.Args) {
			break
		}
		if len(n.Args) == 1 && looksLikeType(n.Fun) {
			if t := e.typeOf(n.Fun); t != nil { // a conversion
				f.fix(n.Args[0].(*ast.BasicLit), t)
				break
			}
		}
		if ft, recv := e.funcType(n.Fun, local); ft != nil {
			for i, a := range n.Args {
				if lit, ok := a.(*ast.BasicLit); ok {
					f.fix(lit, paramType(ft, recv+i))
				}
			}
		}
	case *ast.ValueSpec:
		if n.Type != nil {
			t := e.typeOf(n.Type)
			for _, v := range n.Values {
				f.value(v, t)
			}
		}
	}
}

// fix records the rewrite of lit when t is a compiled named string type.
func (f *litFixer) fix(lit *ast.BasicLit, t xr.Type) {
	if lit.Kind != token.STRING || !needsTypedConst(t) {
		return
	}
	off := f.offset(lit.Pos())
	end := off + len(lit.Value)
	if off < 0 || end > len(f.src) || f.src[off:end] != lit.Value {
		return
	}
	f.edits = append(f.edits, litEdit{off, end, fmt.Sprintf("%s(string(%s))", f.e.strAlias(t), lit.Value)})
}

// value handles an element of a composite literal of element type t.
func (f *litFixer) value(v ast.Expr, t xr.Type) {
	switch v := v.(type) {
	case *ast.BasicLit:
		f.fix(v, t)
	case *ast.CompositeLit:
		if v.Type == nil && t != nil {
			f.visitLit(v, t)
		}
	case *ast.UnaryExpr: // &T{...} or an elided &{...} of a []*T
		if cl, ok := v.X.(*ast.CompositeLit); ok && v.Op == token.AND && cl.Type == nil && t != nil && t.Kind() == reflect.Ptr {
			f.visitLit(cl, t.Elem())
		}
	}
}

// visitLit handles the elements of a composite literal of type t.
func (f *litFixer) visitLit(cl *ast.CompositeLit, t xr.Type) {
	for t != nil && t.Kind() == reflect.Ptr {
		t = t.Elem()
	}
	if t == nil {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if fl, n := t.FieldByName(id.Name, ""); n == 1 {
						f.value(kv.Value, fl.Type)
					}
				}
			} else if i < t.NumField() {
				f.value(el, t.Field(i).Type)
			}
		}
	case reflect.Slice, reflect.Array:
		for _, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			f.value(el, t.Elem())
		}
	case reflect.Map:
		for _, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				f.value(kv.Key, t.Key())
				f.value(kv.Value, t.Elem())
			}
		}
	}
}

// apply returns src with the edits made, from the last back.
func (f *litFixer) apply() string {
	if len(f.edits) == 0 {
		return f.src
	}
	out := f.src
	edits := f.edits
	sort.Slice(edits, func(i, j int) bool { return edits[i].off > edits[j].off })
	for i, ed := range edits {
		if i > 0 && ed.end > edits[i-1].off {
			continue // overlapping: cannot happen for distinct literals
		}
		out = out[:ed.off] + ed.text + out[ed.end:]
	}
	return out
}

// litType is the type of a composite literal T{...} or &T{...}, nil for
// any other expression.
func (e *Engine) litType(x ast.Expr) xr.Type {
	ptr := false
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x, ptr = u.X, true
	}
	cl, ok := x.(*ast.CompositeLit)
	if !ok || cl.Type == nil {
		return nil
	}
	t := e.typeOf(cl.Type)
	if t != nil && ptr {
		t = e.ir.Comp.Universe.PtrTo(t)
	}
	return t
}

// exprType is the type of an assignment's left side made of variables,
// fields and index expressions: a variable of the cell (local) or of the
// session, nil when unknown.
func (e *Engine) exprType(x ast.Expr, local map[string]xr.Type) (t xr.Type) {
	defer func() {
		if recover() != nil {
			t = nil
		}
	}()
	switch x := x.(type) {
	case *ast.Ident:
		if t, ok := local[x.Name]; ok {
			return t
		}
		if sym := e.ir.Comp.TryResolve(x.Name); sym != nil && (sym.Desc.Class() == fast.VarBind || sym.Desc.Class() == fast.IntBind) {
			return sym.Type
		}
	case *ast.ParenExpr:
		return e.exprType(x.X, local)
	case *ast.StarExpr:
		if t := e.exprType(x.X, local); t != nil && t.Kind() == reflect.Ptr {
			return t.Elem()
		}
	case *ast.SelectorExpr:
		t := e.exprType(x.X, local)
		for t != nil && t.Kind() == reflect.Ptr {
			t = t.Elem()
		}
		if t != nil && t.Kind() == reflect.Struct {
			if f, n := t.FieldByName(x.Sel.Name, ""); n == 1 {
				return f.Type
			}
		}
	case *ast.IndexExpr:
		t := e.exprType(x.X, local)
		for t != nil && t.Kind() == reflect.Ptr {
			t = t.Elem()
		}
		if t != nil {
			switch t.Kind() {
			case reflect.Slice, reflect.Array, reflect.Map:
				return t.Elem()
			}
		}
	}
	return nil
}

// hasStringLit reports whether a call has a string literal argument.
func hasStringLit(args []ast.Expr) bool {
	for _, a := range args {
		if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			return true
		}
	}
	return false
}

// funcType returns the type of a called function: a package's function
// (compiled alone: a selector compiles to a constant, nothing runs) or a
// method of a variable whose type exprType knows; recv is 1 when the type's
// first parameter is the method's receiver.
func (e *Engine) funcType(fun ast.Expr, local map[string]xr.Type) (ft xr.Type, recv int) {
	defer func() {
		if recover() != nil {
			ft, recv = nil, 0
		}
	}()
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return nil, 0
	}
	if t := e.exprType(sel.X, local); t != nil {
		for _, t := range []xr.Type{t, e.ir.Comp.Universe.PtrTo(t)} {
			if m, n := t.MethodByName(sel.Sel.Name, ""); n == 1 && m.Type != nil {
				if m.Type.IsMethod() {
					return m.Type, 1
				}
				return m.Type, 0
			}
		}
		return nil, 0
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok || local[id.Name] != nil {
		return nil, 0
	}
	if sym := e.ir.Comp.TryResolve(id.Name); sym != nil && (sym.Desc.Class() == fast.VarBind || sym.Desc.Class() == fast.IntBind) {
		return nil, 0 // a variable of a type exprType does not know
	}
	g := &e.ir.Comp.Globals
	so, se := g.Stdout, g.Stderr
	g.Stdout, g.Stderr = discard{}, discard{}
	defer func() { g.Stdout, g.Stderr = so, se }()
	if x := e.ir.Comp.Expr1(sel, nil); x != nil && x.Type != nil && x.Type.Kind() == reflect.Func {
		return x.Type, 0
	}
	return nil, 0
}

// paramType is the type of argument i of a call of a function of type ft
// (the element type for the arguments of a variadic parameter), nil past
// the end.
func paramType(ft xr.Type, i int) xr.Type {
	n := ft.NumIn()
	switch {
	case ft.IsVariadic() && i >= n-1:
		return ft.In(n - 1).Elem()
	case i < n:
		return ft.In(i)
	}
	return nil
}

// needsTypedConst reports whether t is a named string type compiled into
// the binary, which gomacro cannot convert an untyped constant to.
func needsTypedConst(t xr.Type) bool {
	if t == nil || t.Kind() != reflect.String {
		return false
	}
	rt := t.ReflectType()
	return rt != nil && rt != reflect.TypeOf("")
}

// looksLikeType reports whether a call's function could be a type: an
// identifier or a package-qualified one (Comp.Type decides).
func looksLikeType(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		_, ok := x.X.(*ast.Ident)
		return ok
	case *ast.ParenExpr:
		return looksLikeType(x.X)
	}
	return false
}

// typeOf compiles a type expression, or returns nil when x is not a type
// the session knows yet (a type declared in the same cell, a function).
func (e *Engine) typeOf(x ast.Expr) (t xr.Type) {
	defer func() {
		if recover() != nil {
			t = nil
		}
	}()
	// Compiling a type expression declares nothing; its complaints about a
	// non-type go nowhere.
	g := &e.ir.Comp.Globals
	so, se := g.Stdout, g.Stderr
	g.Stdout, g.Stderr = discard{}, discard{}
	defer func() { g.Stdout, g.Stderr = so, se }()
	return e.ir.Comp.Type(x)
}

// strAlias returns the session's alias for the named string type t,
// declaring it on first use.
func (e *Engine) strAlias(t xr.Type) string {
	rt := t.ReflectType()
	if name, ok := e.strAliases[rt]; ok {
		return name
	}
	if e.strAliases == nil {
		e.strAliases = map[reflect.Type]string{}
	}
	name := fmt.Sprintf("%s%d", strAliasPrefix, len(e.strAliases)+1)
	e.ir.DeclTypeAlias(name, t)
	e.strAliases[rt] = name
	return name
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
