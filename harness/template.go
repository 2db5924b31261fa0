package harness

import (
	"fmt"
	"io/fs"
	"strings"
	"text/template"
)

// Templates parses the report templates matching patterns in fsys (a
// kind embeds its own), with TemplateFuncs and then funcs (which may add
// to them or replace them; nil adds none). Report prose lives in such
// templates; the kind's statistics code hands them plain structs.
func Templates(fsys fs.FS, funcs template.FuncMap, patterns ...string) (*template.Template, error) {
	t := template.New("").Funcs(TemplateFuncs())
	if funcs != nil {
		t = t.Funcs(funcs)
	}
	t, err := t.ParseFS(fsys, patterns...)
	if err != nil {
		return nil, fmt.Errorf("report templates: %w", err)
	}
	return t, nil
}

// RenderFile parses the template file called name in fsys (with
// TemplateFuncs) and executes it with data: a kind's one section template.
func RenderFile(fsys fs.FS, name string, data any) (string, error) {
	t, err := Templates(fsys, nil, name)
	if err != nil {
		return "", err
	}
	return Render(t, name, data)
}

// Render executes the template called name with data and returns the
// text.
func Render(t *template.Template, name string, data any) (string, error) {
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("report template %s: %w", name, err)
	}
	return b.String(), nil
}

// TemplateFuncs are the formatting functions every report template has:
//
//	sig v digits    FormatSig
//	pct p           p as a percentage with 3 significant digits ("12.3%")
//	list v digits   FormatList
//	table h rows    MarkdownTable
//	cols a b ...    the strings as a list (a table's header)
//	claims cs       ClaimsTable
//	join list sep   strings.Join
//	upper s         strings.ToUpper
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{
		"sig":    FormatSig,
		"pct":    FormatPct,
		"list":   FormatList,
		"table":  MarkdownTable,
		"cols":   func(s ...string) []string { return s },
		"claims": ClaimsTable,
		"join":   strings.Join,
		"upper":  strings.ToUpper,
	}
}

// FormatPct formats a probability as a percentage with three significant
// digits, for prose.
func FormatPct(p float64) string { return FormatSig(100*p, 3) + "%" }
