package report

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// Part is one part of the report: the experiments whose spec file lies
// in Dir (a slash-separated directory, matched against the end of the
// spec file's directory, so that "experiments/examples" matches
// "./experiments/examples/x.toml" and "/home/me/privic/experiments/
// examples/x.toml"), under a level-2 heading.
type Part struct {
	Heading string
	Dir     string
	// About is the part's first line (optional).
	About string
}

// DefaultParts are the parts of the project's report: the paper's
// reproduction first, then the extensions, the examples and the study at
// finer resolution. Experiments of no part follow under "Other
// experiments".
func DefaultParts() []Part {
	return []Part{
		{Heading: "The paper's reproduction", Dir: "experiments",
			About: "The paper's figures, tables and claims, from the specs in `experiments/` (`./run.sh` runs them)."},
		{Heading: "Extensions", Dir: "experiments/extended",
			About: "What the paper does not do: more mechanisms, exact optima, larger grids (specs in `experiments/extended/`)."},
		{Heading: "Examples", Dir: "experiments/examples",
			About: "How to run the kinds on other grids and on data of one's own (specs in `experiments/examples/`)."},
		{Heading: "Studies at finer resolution", Dir: "experiments/extended/fine",
			About: "The paper's experiments again on its regions gridded much finer, and its claims at both resolutions (specs in `experiments/extended/fine/`)."},
	}
}

// otherPart holds the experiments of no part (a spec elsewhere, or no
// manifest to tell).
const otherPart = "Other experiments"

// partOf is the index in parts of the part whose Dir ends the directory
// of specFile (the longest such Dir), or -1.
func partOf(parts []Part, specFile string) int {
	if specFile == "" {
		return -1
	}
	dir := "/" + strings.Trim(path.Dir(path.Clean(strings.ReplaceAll(specFile, `\`, "/"))), "/")
	best, bestLen := -1, -1
	for i, p := range parts {
		d := strings.Trim(path.Clean(p.Dir), "/")
		if strings.HasSuffix(dir, "/"+d) && len(d) > bestLen {
			best, bestLen = i, len(d)
		}
	}
	return best
}

// experimentHeading is the level-3 heading of an experiment: its name,
// the datasets it ran on and the title of its section, e.g. "elastic on
// Paris: Elastic location privacy ...".
func experimentHeading(name string, datasets []string, title string) string {
	h := name
	if len(datasets) > 0 {
		h += " on " + joinAnd(datasets)
	}
	if title != "" {
		h += ": " + title
	}
	return "### " + oneLine(h)
}

// joinAnd joins words as prose: "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// fenceRE matches the opening or closing line of a fenced code block,
// and headingRE an ATX heading: its hashes and its text.
var (
	fenceRE   = regexp.MustCompile("^ {0,3}(```|~~~)")
	headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
)

// nest puts a section under its experiment's heading: the section's
// leading level-2 heading gives the title (returned; "" when it has
// none) and is dropped, and every later heading goes at least one level
// below the experiment's, so that the report's level-2 headings are its
// parts alone. Code blocks are left as they are.
func nest(md string) (title, body string) {
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if m := headingRE.FindStringSubmatch(lines[0]); m != nil && len(m[1]) == 2 {
		title = strings.TrimSpace(m[2])
		lines = lines[1:]
	}
	atxHeadings(lines, func(i, level int, text string) {
		lines[i] = strings.Repeat("#", min(6, max(4, level+1))) + " " + text
	})
	return title, strings.TrimSpace(strings.Join(lines, "\n"))
}

// atxHeadings calls f with the index, level and text of every ATX
// heading of lines outside fenced code blocks, in order.
func atxHeadings(lines []string, f func(i, level int, text string)) {
	inFence := ""
	for i, l := range lines {
		if m := fenceRE.FindStringSubmatch(l); m != nil {
			switch {
			case inFence == "":
				inFence = m[1]
			case inFence == m[1]:
				inFence = ""
			}
			continue
		}
		if m := headingRE.FindStringSubmatch(l); m != nil && inFence == "" {
			f(i, len(m[1]), strings.TrimSpace(m[2]))
		}
	}
}

// heading is an ATX heading of the assembled report: its level, its
// text as written and its anchor.
type heading struct {
	level      int
	text, slug string
}

// headings lists md's ATX headings outside code blocks, with the anchors
// that GitHub and REPORT.html give them (see slugger).
func headings(md string) []heading {
	var out []heading
	var s slugger
	atxHeadings(strings.Split(md, "\n"), func(_, level int, text string) {
		out = append(out, heading{level: level, text: text, slug: s.next(text)})
	})
	return out
}

// contentsMarker stands for the table of contents until every heading,
// and so every anchor, is known.
const contentsMarker = "<!-- contents -->"

// contents replaces contentsMarker in md by the table of contents: a
// link to every level-2 heading after it, with the level-3 headings of
// want (the experiments' headings, in document order) nested under their
// part. Links of the text before it to a level-2 heading whose anchor a
// section's heading of the same name took first ("#claims" when a
// section has a "Claims" heading) are pointed at the heading's anchor.
func contents(md string, want []string) (string, error) {
	at := strings.Index(md, contentsMarker)
	if at < 0 {
		return "", fmt.Errorf("report template: no %s", contentsMarker)
	}
	intro := md[:at]
	var b strings.Builder
	k := 0
	for _, h := range headings(md) {
		if base := slugOf(h.text); h.level == 2 && base != h.slug {
			intro = strings.ReplaceAll(intro, "](#"+base+")", "](#"+h.slug+")")
		}
		switch {
		case h.level == 3 && k < len(want) && "### "+h.text == want[k]:
			k++
			fmt.Fprintf(&b, "  - [%s](#%s)\n", linkText(h.text), h.slug)
		case h.level == 2 && h.text != "Contents":
			fmt.Fprintf(&b, "- [%s](#%s)\n", linkText(h.text), h.slug)
		}
	}
	if k != len(want) {
		return "", fmt.Errorf("report: heading %q not found in the assembled report", want[k])
	}
	return intro + strings.TrimSuffix(b.String(), "\n") + md[at+len(contentsMarker):], nil
}

// linkText is a heading's text as the text of a link: links inside it
// are reduced to their text, and brackets are escaped.
func linkText(s string) string {
	s = mdLinkRE.ReplaceAllString(s, "$1")
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s)
}

// mdLinkRE matches an inline Markdown link or image, its text in $1.
var mdLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// slugger gives headings the anchors GitHub gives them: the heading's
// text (links reduced to their text), lower-cased, without punctuation
// or symbols except '-' and '_', each space a '-'; a repeated anchor gets
// "-1", "-2", ... REPORT.html uses the same anchors (idGenerator), so
// one link works in both.
type slugger struct{ seen map[string]int }

func (s *slugger) next(text string) string {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	base := slugOf(mdLinkRE.ReplaceAllString(text, "$1"))
	slug := base
	for {
		if _, dup := s.seen[slug]; !dup {
			break
		}
		s.seen[base]++
		slug = fmt.Sprintf("%s-%d", base, s.seen[base])
	}
	s.seen[slug] = 0
	return slug
}

func slugOf(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
