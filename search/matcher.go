package search

// Matcher is a parsed query for searching texts that live elsewhere (team
// sync's database): the same words, phrases, case folding and snippets as
// Search.
type Matcher struct{ q *query }

// NewMatcher parses a query as Search does; its errors are Search's.
func NewMatcher(query string) (*Matcher, error) {
	q, err := parseQuery(query)
	if err != nil {
		return nil, err
	}
	return &Matcher{q: q}, nil
}

// Terms returns the query's terms, folded to lower case: every one must
// occur in a matching text.
func (m *Matcher) Terms() []string { return append([]string(nil), m.q.terms...) }

// Match reports whether text holds every term and returns the snippet
// around the first match with its highlighted ranges, as in a Hit.
func (m *Matcher) Match(text string) (snippet string, highlights [][2]int, ok bool) {
	start, end, ok := m.q.match(text)
	if !ok {
		return "", nil, false
	}
	snippet, highlights = m.q.makeSnippet(text, start, end)
	return snippet, highlights, true
}

// Has reports whether text holds every term, as Match does, without
// making the snippet.
func (m *Matcher) Has(text string) bool {
	_, _, ok := m.q.match(text)
	return ok
}
