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
// whose type the context fixes to such a named type and rewrites each as a
// conversion of a typed constant through an alias the session declares for
// the type: "cg" becomes _oclsolveStr1(string("cg")), the same constant of
// the same type. The contexts: a field, element or key of a composite
// literal, the operand of a conversion, the value of a var declaration
// with that type, the right side of an assignment (= or +=), an operand of
// a comparison or of + whose other operand has the type (gomacro compares
// them wrongly: x.Method == "cg" was false for "cg"), a case of a switch on
// such a value, a map index, a value sent on a channel, a call argument
// for a parameter of the type (the function's signature known from its
// compiled or declared type) and a returned value of a function whose
// results are declared with the type.
//
// Types come from the session (its variables, functions, constants and
// imported packages) and from the cell itself, resolved scope by scope as
// Go does: a name the cell declares shadows the session's, and one whose
// type is not known here (declared from an expression not understood) is
// left alone, never taken for the session's variable of that name.

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
	top := &scope{}
	// Types and functions declared at the cell's top level are visible in
	// the whole cell, also before their declaration; functions' signatures
	// may use the cell's types.
	for _, n := range nodes {
		if d, ok := n.(*ast.GenDecl); ok {
			for _, sp := range d.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok {
					top.declare(ts.Name, nil)
				}
			}
		}
	}
	for _, n := range nodes {
		if d, ok := n.(*ast.FuncDecl); ok && d.Recv == nil {
			top.declare(d.Name, f.typeOf(d.Type, top))
		}
	}
	for _, n := range nodes {
		f.walk(n, top)
	}
	return f.apply()
}

// litFixer collects the rewrites of one cell's literals.
type litFixer struct {
	e       *Engine
	offset  func(token.Pos) int // in src
	src     string
	edits   []litEdit
	results [][]xr.Type // of the enclosing function literals and declarations
}

// litEdit replaces src[off:end] by text.
type litEdit struct {
	off, end int
	text     string
}

// scope holds the names a block of the cell declares, with their types:
// nil for a type name or a variable whose type is not known here.
type scope struct {
	outer *scope
	names map[string]xr.Type
}

func (s *scope) child() *scope { return &scope{outer: s} }

func (s *scope) declare(id *ast.Ident, t xr.Type) {
	if id == nil || id.Name == "_" {
		return
	}
	if s.names == nil {
		s.names = map[string]xr.Type{}
	}
	s.names[id.Name] = t
}

// lookup returns the type of the cell's declaration of name, and whether
// the cell declares it in s or an enclosing scope.
func (s *scope) lookup(name string) (xr.Type, bool) {
	for ; s != nil; s = s.outer {
		if t, ok := s.names[name]; ok {
			return t, true
		}
	}
	return nil, false
}

// walk visits n in scope sc: it records the rewrites of n's literals and
// declares the names n declares, in order, as Go resolves them.
func (f *litFixer) walk(n ast.Node, sc *scope) {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return
	}
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		return f.visit(n, sc)
	})
}

// walkIn walks nodes in order in scope sc: the parts of a statement (init,
// condition, body, ...), as Go resolves their names.
func (f *litFixer) walkIn(sc *scope, nodes ...ast.Node) {
	for _, n := range nodes {
		f.walk(n, sc)
	}
}

// walkStmts walks a statement list in scope sc.
func (f *litFixer) walkStmts(sc *scope, list []ast.Stmt) {
	for _, s := range list {
		f.walk(s, sc)
	}
}

// visit handles node n for walk; false when it walked n's children itself.
func (f *litFixer) visit(n ast.Node, sc *scope) bool {
	switch n := n.(type) {
	case *ast.BlockStmt:
		f.walkStmts(sc.child(), n.List)
		return false
	case *ast.FuncLit:
		f.function(n.Type, nil, n.Body, sc)
		return false
	case *ast.FuncDecl:
		f.function(n.Type, n.Recv, n.Body, sc)
		return false
	case *ast.IfStmt:
		f.walkIn(sc.child(), n.Init, n.Cond, n.Body, n.Else)
		return false
	case *ast.ForStmt:
		f.walkIn(sc.child(), n.Init, n.Cond, n.Post, n.Body)
		return false
	case *ast.RangeStmt:
		f.walk(n.X, sc)
		in := sc.child()
		if n.Tok == token.DEFINE {
			kt, vt := f.rangeTypes(f.exprType(n.X, sc))
			if id, ok := n.Key.(*ast.Ident); ok {
				in.declare(id, kt)
			}
			if id, ok := n.Value.(*ast.Ident); ok {
				in.declare(id, vt)
			}
		} else {
			f.walkIn(sc, n.Key, n.Value)
		}
		f.walk(n.Body, in)
		return false
	case *ast.SwitchStmt:
		in := sc.child()
		f.walkIn(in, n.Init, n.Tag)
		var tag xr.Type
		if n.Tag != nil {
			tag = f.exprType(n.Tag, in)
		}
		for _, s := range n.Body.List {
			cc := s.(*ast.CaseClause)
			for _, x := range cc.List {
				if lit, ok := x.(*ast.BasicLit); ok {
					f.fix(lit, tag)
				} else {
					f.walk(x, in)
				}
			}
			f.walkStmts(in.child(), cc.Body)
		}
		return false
	case *ast.TypeSwitchStmt:
		in := sc.child()
		f.walk(n.Init, in)
		var bound *ast.Ident
		if as, ok := n.Assign.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == 1 {
			bound, _ = as.Lhs[0].(*ast.Ident)
			for _, r := range as.Rhs {
				f.walk(r, in)
			}
		} else {
			f.walk(n.Assign, in)
		}
		for _, s := range n.Body.List {
			cc := s.(*ast.CaseClause)
			body := in.child()
			var t xr.Type
			if len(cc.List) == 1 {
				t = f.typeOf(cc.List[0], in)
			}
			body.declare(bound, t)
			f.walkStmts(body, cc.Body)
		}
		return false
	case *ast.CommClause:
		in := sc.child()
		f.walk(n.Comm, in)
		f.walkStmts(in, n.Body)
		return false
	case *ast.AssignStmt:
		f.inspect(n, sc)
		for _, r := range n.Rhs {
			f.walk(r, sc)
		}
		if n.Tok != token.DEFINE {
			for _, l := range n.Lhs {
				f.walk(l, sc)
			}
			return false
		}
		types := f.valueTypes(n.Rhs, len(n.Lhs), sc)
		for i, l := range n.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				sc.declare(id, types[i])
			}
		}
		return false
	case *ast.ValueSpec:
		f.inspect(n, sc)
		for _, v := range n.Values {
			f.walk(v, sc)
		}
		var types []xr.Type
		if n.Type != nil {
			t := f.typeOf(n.Type, sc)
			types = make([]xr.Type, len(n.Names))
			for i := range types {
				types[i] = t
			}
		} else {
			types = f.valueTypes(n.Values, len(n.Names), sc)
		}
		for i, id := range n.Names {
			sc.declare(id, types[i])
		}
		return false
	case *ast.TypeSpec:
		sc.declare(n.Name, nil)
		return false
	}
	f.inspect(n, sc)
	return true
}

// function walks a function's body in a scope with its receiver,
// parameters and results, its result types known for its returns.
func (f *litFixer) function(ft *ast.FuncType, recv *ast.FieldList, body *ast.BlockStmt, sc *scope) {
	in := sc.child()
	for _, fl := range []*ast.FieldList{recv, ft.Params, ft.Results} {
		if fl == nil {
			continue
		}
		for _, field := range fl.List {
			var t xr.Type
			if _, ok := field.Type.(*ast.Ellipsis); !ok {
				t = f.typeOf(field.Type, sc)
			}
			for _, id := range field.Names {
				in.declare(id, t)
			}
		}
	}
	var results []xr.Type
	if ft.Results != nil {
		for _, field := range ft.Results.List {
			t := f.typeOf(field.Type, sc)
			for range max(len(field.Names), 1) {
				results = append(results, t)
			}
		}
	}
	f.results = append(f.results, results)
	defer func() { f.results = f.results[:len(f.results)-1] }()
	if body != nil {
		f.walkStmts(in, body.List)
	}
}

// valueTypes returns the types of n variables declared from values (nil
// where not known).
func (f *litFixer) valueTypes(values []ast.Expr, n int, sc *scope) []xr.Type {
	types := make([]xr.Type, n)
	switch {
	case len(values) == n:
		for i, v := range values {
			types[i] = f.exprType(v, sc)
		}
	case len(values) == 1:
		if call, ok := values[0].(*ast.CallExpr); ok {
			if ft := f.exprType(call.Fun, sc); ft != nil && ft.Kind() == reflect.Func && ft.NumOut() == n {
				for i := range types {
					types[i] = ft.Out(i)
				}
			}
		}
	}
	return types
}

// rangeTypes returns the types of a range loop's key and value over a
// value of type t.
func (f *litFixer) rangeTypes(t xr.Type) (key, val xr.Type) {
	if t == nil {
		return nil, nil
	}
	if t.Kind() == reflect.Ptr && t.Elem().Kind() == reflect.Array {
		t = t.Elem()
	}
	u := f.e.ir.Comp.Universe
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return u.BasicTypes[reflect.Int], t.Elem()
	case reflect.Map:
		return t.Key(), t.Elem()
	case reflect.Chan:
		return t.Elem(), nil
	}
	return nil, nil
}

// inspect finds the literals of node n whose type the context fixes.
func (f *litFixer) inspect(n ast.Node, sc *scope) {
	switch n := n.(type) {
	case *ast.AssignStmt:
		if (n.Tok == token.ASSIGN || n.Tok == token.ADD_ASSIGN) && len(n.Lhs) == len(n.Rhs) {
			for i, r := range n.Rhs {
				if lit, ok := r.(*ast.BasicLit); ok {
					f.fix(lit, f.exprType(n.Lhs[i], sc))
				}
			}
		}
	case *ast.BinaryExpr:
		switch n.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.ADD:
			if lit, ok := n.Y.(*ast.BasicLit); ok {
				f.fix(lit, f.exprType(n.X, sc))
			}
			if lit, ok := n.X.(*ast.BasicLit); ok {
				f.fix(lit, f.exprType(n.Y, sc))
			}
		}
	case *ast.CompositeLit:
		if n.Type != nil {
			f.visitLit(n, f.typeOf(n.Type, sc))
		}
	case *ast.CallExpr:
		if len(n.Args) == 1 && looksLikeType(n.Fun) {
			if t := f.typeOf(n.Fun, sc); t != nil {
				if lit, ok := n.Args[0].(*ast.BasicLit); ok {
					f.fix(lit, t)
				}
				return
			}
		}
		ft := f.exprType(n.Fun, sc)
		if ft == nil || ft.Kind() != reflect.Func {
			return
		}
		for i, a := range n.Args {
			lit, ok := a.(*ast.BasicLit)
			if !ok {
				continue
			}
			switch last := ft.NumIn() - 1; {
			case ft.IsVariadic() && i >= last:
				if !n.Ellipsis.IsValid() {
					f.fix(lit, ft.In(last).Elem())
				}
			case i <= last:
				f.fix(lit, ft.In(i))
			}
		}
	case *ast.IndexExpr:
		if lit, ok := n.Index.(*ast.BasicLit); ok {
			if t := f.exprType(n.X, sc); t != nil && t.Kind() == reflect.Map {
				f.fix(lit, t.Key())
			}
		}
	case *ast.SendStmt:
		if lit, ok := n.Value.(*ast.BasicLit); ok {
			if t := f.exprType(n.Chan, sc); t != nil && t.Kind() == reflect.Chan {
				f.fix(lit, t.Elem())
			}
		}
	case *ast.ReturnStmt:
		if len(f.results) == 0 {
			return
		}
		if results := f.results[len(f.results)-1]; len(results) == len(n.Results) {
			for i, r := range n.Results {
				if lit, ok := r.(*ast.BasicLit); ok {
					f.fix(lit, results[i])
				}
			}
		}
	case *ast.ValueSpec:
		if n.Type != nil {
			t := f.typeOf(n.Type, sc)
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
	for _, ed := range f.edits {
		if ed.off == off {
			return // reached twice (a composite literal's element)
		}
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

// exprType is the type of expression x in scope sc, nil when not known
// here: x's names resolve to the cell's declarations first, then to the
// session's variables, functions, constants and packages.
func (f *litFixer) exprType(x ast.Expr, sc *scope) (t xr.Type) {
	defer func() {
		if recover() != nil {
			t = nil
		}
	}()
	e := f.e
	switch x := x.(type) {
	case *ast.Ident:
		if t, ok := sc.lookup(x.Name); ok {
			return t
		}
		if sym := e.ir.Comp.TryResolve(x.Name); sym != nil && !sym.Untyped() {
			switch sym.Desc.Class() {
			case fast.VarBind, fast.IntBind, fast.FuncBind:
				return sym.Type
			case fast.ConstBind:
				if _, imp := sym.Value.(*fast.Import); !imp {
					return sym.Type
				}
			}
		}
	case *ast.ParenExpr:
		return f.exprType(x.X, sc)
	case *ast.StarExpr:
		if t := f.exprType(x.X, sc); t != nil && t.Kind() == reflect.Ptr {
			return t.Elem()
		}
	case *ast.UnaryExpr:
		t := f.exprType(x.X, sc)
		switch {
		case t == nil:
		case x.Op == token.AND:
			return e.ir.Comp.Universe.PtrTo(t)
		case x.Op == token.ARROW:
			if t.Kind() == reflect.Chan {
				return t.Elem()
			}
		default:
			return t
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return nil // bool, possibly untyped
		case token.SHL, token.SHR:
			return f.exprType(x.X, sc)
		}
		if t := f.exprType(x.X, sc); t != nil {
			return t
		}
		return f.exprType(x.Y, sc)
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if _, local := sc.lookup(id.Name); !local {
				if sym := e.ir.Comp.TryResolve(id.Name); sym != nil && sym.Desc.Class() == fast.ConstBind {
					if imp, ok := sym.Value.(*fast.Import); ok {
						if b, ok := imp.Binds[x.Sel.Name]; ok && !b.Untyped() {
							return b.Type
						}
						return nil
					}
				}
			}
		}
		return f.memberType(f.exprType(x.X, sc), x.Sel.Name)
	case *ast.IndexExpr:
		t := f.exprType(x.X, sc)
		if t != nil && t.Kind() == reflect.Ptr && t.Elem().Kind() == reflect.Array {
			t = t.Elem()
		}
		if t != nil {
			switch t.Kind() {
			case reflect.Slice, reflect.Array, reflect.Map:
				return t.Elem()
			}
		}
	case *ast.SliceExpr:
		return f.exprType(x.X, sc)
	case *ast.CallExpr:
		if looksLikeType(x.Fun) {
			if t := f.typeOf(x.Fun, sc); t != nil {
				return t // a conversion
			}
		}
		if id, ok := x.Fun.(*ast.Ident); ok && len(x.Args) > 0 {
			if _, local := sc.lookup(id.Name); !local {
				switch id.Name {
				case "make":
					return f.typeOf(x.Args[0], sc)
				case "new":
					if t := f.typeOf(x.Args[0], sc); t != nil {
						return e.ir.Comp.Universe.PtrTo(t)
					}
					return nil
				}
			}
		}
		if ft := f.exprType(x.Fun, sc); ft != nil && ft.Kind() == reflect.Func && ft.NumOut() == 1 {
			return ft.Out(0)
		}
	case *ast.CompositeLit:
		if x.Type != nil {
			return f.typeOf(x.Type, sc)
		}
	case *ast.FuncLit:
		return f.typeOf(x.Type, sc)
	case *ast.TypeAssertExpr:
		if x.Type != nil {
			return f.typeOf(x.Type, sc)
		}
	}
	return nil
}

// memberType is the type of field or method name of a value of type t.
func (f *litFixer) memberType(t xr.Type, name string) xr.Type {
	if t == nil {
		return nil
	}
	pt := t
	if t.Kind() == reflect.Ptr {
		t = t.Elem()
	} else if t.Kind() != reflect.Interface {
		pt = f.e.ir.Comp.Universe.PtrTo(t)
	}
	if t.Kind() == reflect.Struct {
		if fl, n := t.FieldByName(name, ""); n == 1 {
			return fl.Type
		}
	}
	for _, mt := range []xr.Type{t, pt} {
		if m, n := mt.MethodByName(name, ""); n == 1 {
			return f.methodValueType(m.Type)
		}
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

// methodValueType is the type of a method value: method type mt without
// its receiver, which xreflect counts as the first parameter.
func (f *litFixer) methodValueType(mt xr.Type) xr.Type {
	if mt == nil || mt.Kind() != reflect.Func {
		return nil
	}
	if !mt.IsMethod() || mt.NumIn() == 0 {
		return mt
	}
	in := make([]xr.Type, mt.NumIn()-1)
	for i := range in {
		in[i] = mt.In(i + 1)
	}
	out := make([]xr.Type, mt.NumOut())
	for i := range out {
		out[i] = mt.Out(i)
	}
	return f.e.ir.Comp.Universe.FuncOf(in, out, mt.IsVariadic())
}

// typeOf is the type type expression x denotes in scope sc: nil when x
// names something the cell declares (a variable named like a package, a
// type declared in the cell), which the session cannot know.
func (f *litFixer) typeOf(x ast.Expr, sc *scope) xr.Type {
	if mentionsLocal(x, sc) {
		return nil
	}
	return f.e.typeOf(x)
}

// mentionsLocal reports whether type expression x refers to a name the
// cell declares in scope sc.
func mentionsLocal(x ast.Expr, sc *scope) bool {
	found := false
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if _, ok := sc.lookup(n.Name); ok {
				found = true
			}
		case *ast.SelectorExpr: // pkg.Name: only pkg can be the cell's
			ast.Inspect(n.X, visit)
			return false
		case *ast.Field: // a field's or parameter's name is not a reference
			ast.Inspect(n.Type, visit)
			return false
		}
		return !found
	}
	ast.Inspect(x, visit)
	return found
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
