package report

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// html renders the Markdown report as one page: GitHub-flavoured tables,
// the heading anchors GitHub gives REPORT.md (so that the table of
// contents and every other link work in both), figures referenced relatively
// (the page sits beside the experiment directories), and the style sheet
// inline, so that it opens offline.
func html(md string) ([]byte, error) {
	gm := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		// Sections are the project's own text and may hold <img> tags.
		goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
	)
	var body bytes.Buffer
	ctx := parser.NewContext(parser.WithIDs(&idGenerator{}))
	if err := gm.Convert([]byte(md), &body, parser.WithContext(ctx)); err != nil {
		return nil, fmt.Errorf("render %s: %w", HTMLFile, err)
	}
	t, err := template.ParseFS(templates, "page.html.tmpl")
	if err != nil {
		return nil, fmt.Errorf("report page template: %w", err)
	}
	var page bytes.Buffer
	if err := t.Execute(&page, template.HTML(body.String())); err != nil {
		return nil, fmt.Errorf("report page template: %w", err)
	}
	return page.Bytes(), nil
}

// idGenerator gives REPORT.html's headings REPORT.md's anchors (slugger).
type idGenerator struct{ s slugger }

// Generate implements parser.IDs; value is the heading's text as written.
func (g *idGenerator) Generate(value []byte, _ ast.NodeKind) []byte {
	return []byte(g.s.next(strings.TrimSpace(string(value))))
}

// Put implements parser.IDs: an explicit id is taken as given.
func (g *idGenerator) Put(value []byte) {
	if g.s.seen == nil {
		g.s.seen = map[string]int{}
	}
	g.s.seen[string(value)] = 0
}
