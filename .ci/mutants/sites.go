package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// mutatorsOf lists the mutator types gremlins v0.6.0 applies to a token of
// an assignment, binary or unary expression, branch or ++/-- statement
// (whatever the node: a unary minus gets ARITHMETIC_BASE too, a binary one
// INVERT_NEGATIVES).
var mutatorsOf = map[token.Token][]string{
	token.ADD:            {"ARITHMETIC_BASE"},
	token.SUB:            {"ARITHMETIC_BASE", "INVERT_NEGATIVES"},
	token.MUL:            {"ARITHMETIC_BASE"},
	token.QUO:            {"ARITHMETIC_BASE"},
	token.REM:            {"ARITHMETIC_BASE"},
	token.ADD_ASSIGN:     {"INVERT_ASSIGNMENTS", "REMOVE_SELF_ASSIGNMENTS"},
	token.SUB_ASSIGN:     {"INVERT_ASSIGNMENTS", "REMOVE_SELF_ASSIGNMENTS"},
	token.MUL_ASSIGN:     {"INVERT_ASSIGNMENTS", "REMOVE_SELF_ASSIGNMENTS"},
	token.QUO_ASSIGN:     {"INVERT_ASSIGNMENTS", "REMOVE_SELF_ASSIGNMENTS"},
	token.REM_ASSIGN:     {"INVERT_ASSIGNMENTS", "REMOVE_SELF_ASSIGNMENTS"},
	token.AND_ASSIGN:     {"INVERT_BWASSIGN", "REMOVE_SELF_ASSIGNMENTS"},
	token.OR_ASSIGN:      {"INVERT_BWASSIGN", "REMOVE_SELF_ASSIGNMENTS"},
	token.XOR_ASSIGN:     {"INVERT_BWASSIGN", "REMOVE_SELF_ASSIGNMENTS"},
	token.AND_NOT_ASSIGN: {"INVERT_BWASSIGN", "REMOVE_SELF_ASSIGNMENTS"},
	token.SHL_ASSIGN:     {"INVERT_BWASSIGN", "REMOVE_SELF_ASSIGNMENTS"},
	token.SHR_ASSIGN:     {"INVERT_BWASSIGN", "REMOVE_SELF_ASSIGNMENTS"},
	token.AND:            {"INVERT_BITWISE"},
	token.OR:             {"INVERT_BITWISE"},
	token.XOR:            {"INVERT_BITWISE"},
	token.AND_NOT:        {"INVERT_BITWISE"},
	token.SHL:            {"INVERT_BITWISE"},
	token.SHR:            {"INVERT_BITWISE"},
	token.BREAK:          {"INVERT_LOOPCTRL"},
	token.CONTINUE:       {"INVERT_LOOPCTRL"},
	token.INC:            {"INCREMENT_DECREMENT"},
	token.DEC:            {"INCREMENT_DECREMENT"},
	token.EQL:            {"CONDITIONALS_NEGATION"},
	token.NEQ:            {"CONDITIONALS_NEGATION"},
	token.LSS:            {"CONDITIONALS_BOUNDARY", "CONDITIONALS_NEGATION"},
	token.LEQ:            {"CONDITIONALS_BOUNDARY", "CONDITIONALS_NEGATION"},
	token.GTR:            {"CONDITIONALS_BOUNDARY", "CONDITIONALS_NEGATION"},
	token.GEQ:            {"CONDITIONALS_BOUNDARY", "CONDITIONALS_NEGATION"},
	token.LAND:           {"INVERT_LOGICAL"},
	token.LOR:            {"INVERT_LOGICAL"},
}

// applies tells whether gremlins mutates tok with the mutator typ.
func applies(tok token.Token, typ string) bool {
	return slices.Contains(mutatorsOf[tok], typ)
}

// pos is a place in a package's source: a file's base name, line and
// column (1-based, in bytes, as gremlins reports them).
type pos struct {
	File      string
	Line, Col int
}

func (p pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

func (p pos) less(q pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// site is a token gremlins can mutate, named so that the name survives
// edits elsewhere: the declaration it lies in, the text of its expression
// or statement, and which of that declaration's sites with that text it
// is (1 for the first, in source order).
type site struct {
	At   pos
	Tok  token.Token
	Func string
	Expr string
	Occ  int
}

// source is a package's mutable sites, by position and by declaration.
type source struct {
	dir    string
	at     map[pos]*site
	byFunc map[string][]*site  // in source order, files by name
	decls  map[string][]string // declaration -> the files declaring it
}

// loadSource parses the package's non-test Go files in dir, whatever their
// build constraints (gremlins mutates them all).
func loadSource(dir string) (*source, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	src := &source{dir: dir, at: make(map[pos]*site), byFunc: make(map[string][]*site),
		decls: make(map[string][]string)}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, b, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		src.addFile(fset, filepath.Base(name), f)
	}
	return src, nil
}

// addFile records the sites of one file.
func (s *source) addFile(fset *token.FileSet, base string, f *ast.File) {
	seen := make(map[[2]string]int) // (declaration, text) -> sites so far, in this file
	for _, d := range topDecls(f) {
		s.decls[d.name] = append(s.decls[d.name], base)
		ast.Inspect(d.node, func(n ast.Node) bool {
			tok, at, ok := mutableToken(n)
			if !ok {
				return true
			}
			p := fset.Position(at)
			text := nodeText(fset, n)
			k := [2]string{d.name, text}
			seen[k]++
			st := &site{At: pos{base, p.Line, p.Column}, Tok: tok, Func: d.name, Expr: text, Occ: seen[k]}
			s.at[st.At] = st
			s.byFunc[d.name] = append(s.byFunc[d.name], st)
			return true
		})
	}
}

// decl is a named top-level declaration.
type decl struct {
	name string
	node ast.Node
}

// topDecls lists a file's declarations: functions as F, methods as (*T).M or
// T.M (type parameters dropped), and each spec of a var, const or type
// declaration by its first name, since a package-level initialiser or
// array length can hold a mutant too.
func topDecls(f *ast.File) []decl {
	var out []decl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out = append(out, decl{funcName(d), d})
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					out = append(out, decl{sp.Names[0].Name, sp})
				case *ast.TypeSpec:
					out = append(out, decl{sp.Name.Name, sp})
				}
			}
		}
	}
	return out
}

// funcName names a function or method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	recv := "?"
	if id, ok := t.(*ast.Ident); ok {
		recv = id.Name
	}
	if star != "" {
		return fmt.Sprintf("(*%s).%s", recv, d.Name.Name)
	}
	return recv + "." + d.Name.Name
}

// mutableToken returns the token of n that gremlins mutates, if any.
func mutableToken(n ast.Node) (token.Token, token.Pos, bool) {
	var tok token.Token
	var at token.Pos
	switch n := n.(type) {
	case *ast.AssignStmt:
		tok, at = n.Tok, n.TokPos
	case *ast.BinaryExpr:
		tok, at = n.Op, n.OpPos
	case *ast.BranchStmt:
		tok, at = n.Tok, n.TokPos
	case *ast.IncDecStmt:
		tok, at = n.Tok, n.TokPos
	case *ast.UnaryExpr:
		tok, at = n.Op, n.OpPos
	default:
		return 0, 0, false
	}
	_, ok := mutatorsOf[tok]
	return tok, at, ok
}

// maxOperand is the length beyond which an operand of a site's text is
// shortened (keeping the side next to the operator), so that a key stays
// one readable line.
const maxOperand = 28

// nodeText is the one-line text of a site's node, gofmt-printed (so that
// layout does not matter), long operands shortened.
func nodeText(fset *token.FileSet, n ast.Node) string {
	show := func(n ast.Node) string {
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, n); err != nil {
			return "?"
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	head := func(s string) string { // the start of a right operand
		if r := []rune(s); len(r) > maxOperand {
			return string(r[:maxOperand-3]) + "..."
		}
		return s
	}
	tail := func(s string) string { // the end of a left operand
		if r := []rune(s); len(r) > maxOperand {
			return "..." + string(r[len(r)-maxOperand+3:])
		}
		return s
	}
	switch n := n.(type) {
	case *ast.BinaryExpr:
		return tail(show(n.X)) + " " + n.Op.String() + " " + head(show(n.Y))
	case *ast.AssignStmt:
		var l, r []string
		for _, e := range n.Lhs {
			l = append(l, show(e))
		}
		for _, e := range n.Rhs {
			r = append(r, show(e))
		}
		return tail(strings.Join(l, ", ")) + " " + n.Tok.String() + " " + head(strings.Join(r, ", "))
	case *ast.UnaryExpr:
		return n.Op.String() + head(show(n.X))
	}
	return show(n)
}

// key is the site's name in a survivors file: the declaration, the
// mutator, the quoted text and, past the first, the occurrence.
func (s *site) key(typ string) string {
	k := fmt.Sprintf("%s %s %q", s.Func, typ, s.Expr)
	if s.Occ > 1 {
		k += fmt.Sprintf("#%d", s.Occ)
	}
	return k
}
