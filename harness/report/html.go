package report

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// html renders the Markdown report as one page: GitHub-flavoured tables,
// heading anchors as in REPORT.md's links, figures referenced relatively
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
	if err := gm.Convert([]byte(md), &body); err != nil {
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
