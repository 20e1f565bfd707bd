package proctime

import (
	"fmt"
	"slices"
	"strings"
)

// Marks of the table's cells measured otherwise than exec to exit.
const (
	markHTTP  = "†"
	markReady = "‡"
)

// metric is one line of the summary table: a row's wall, CPU, peak RSS
// or count, for each program.
type metric struct {
	name  string
	what  string // wall, cpu, rss or count
	items map[string]*Item
}

// Programs returns the programs of r in the order they first appear.
func (r Report) Programs() []string {
	var ps []string
	for _, it := range r.Items {
		if !slices.Contains(ps, it.Program) {
			ps = append(ps, it.Program)
		}
	}
	return ps
}

// metrics returns the summary table's lines in the order their rows first
// appear; a program measured twice for a row counts with its last item.
func (r Report) metrics() []metric {
	var order []string
	byRow := map[string]map[string]*Item{}
	for i := range r.Items {
		it := &r.Items[i]
		if byRow[it.Row] == nil {
			byRow[it.Row] = map[string]*Item{}
			order = append(order, it.Row)
		}
		byRow[it.Row][it.Program] = it
	}
	var ms []metric
	for _, row := range order {
		items := byRow[row]
		detail, count := false, false
		for _, it := range items {
			detail = detail || it.Detail
			count = count || it.Count != nil
		}
		switch {
		case count:
			ms = append(ms, metric{row, "count", items})
		case detail:
			ms = append(ms, metric{row + ", wall", "wall", items}, metric{row + ", CPU (user+sys)", "cpu", items},
				metric{row + ", peak RSS", "rss", items})
		default:
			ms = append(ms, metric{row, "wall", items})
		}
	}
	return ms
}

// value returns the summary of it that metric what shows.
func value(it *Item, what string) *Summary {
	if it == nil {
		return nil
	}
	switch what {
	case "wall":
		return it.Wall
	case "cpu":
		return it.CPU
	case "rss":
		return it.PeakRSS
	case "count":
		if it.Count != nil {
			c := float64(*it.Count)
			return &Summary{N: 1, P50: c, P95: c, Min: c, Max: c, Mean: c}
		}
	}
	return nil
}

// cell formats p50 (p95) of it for metric what, marked by how it was
// measured; "—" when it was not.
func cell(it *Item, what string) string {
	s := value(it, what)
	if s == nil {
		return "—"
	}
	f := FormatMS
	switch what {
	case "rss":
		f = FormatKiB
	case "count":
		return fmt.Sprintf("%.0f", s.P50)
	}
	text := f(s.P50)
	if s.N > 1 {
		text += " (" + f(s.P95) + ")"
	}
	switch it.Kind {
	case "http":
		text += " " + markHTTP
	case "ready":
		text += " " + markReady
	}
	return text
}

// ratio formats a's p50 over b's, "0.38×"; "—" when either is missing.
func ratio(a, b *Summary) string {
	if a == nil || b == nil || b.P50 <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", a.P50/b.P50)
}

// Markdown renders r as a summary table, one line per metric with each
// program's p50 (p95) side by side and the ratio of the first program's
// p50 to the second's, then a table of every item in full; the machine,
// load, commits and workload are named above them.
func (r Report) Markdown() string {
	var b strings.Builder
	r.caption(&b)
	ps := r.Programs()
	head := []string{"metric (process, interleaved)"}
	for _, p := range ps {
		head = append(head, p+" p50 (p95)")
	}
	if len(ps) >= 2 {
		head = append(head, ps[0]+" ÷ "+ps[1])
	}
	head = append(head, "runs", "load (1 min)")
	tableRow(&b, head)
	tableRow(&b, slices.Repeat([]string{"---"}, len(head)))
	kinds := map[string]bool{}
	for _, m := range r.metrics() {
		line := []string{m.name}
		var runs []string
		load := [2]float64{-1, -1}
		for _, p := range ps {
			it := m.items[p]
			line = append(line, cell(it, m.what))
			if it != nil {
				kinds[it.Kind] = true
				if s := value(it, m.what); s != nil && !slices.Contains(runs, fmt.Sprint(s.N)) {
					runs = append(runs, fmt.Sprint(s.N))
				}
				load = widen(load, it.Load)
			}
		}
		if len(ps) >= 2 {
			line = append(line, ratio(value(m.items[ps[0]], m.what), value(m.items[ps[1]], m.what)))
		}
		line = append(line, strings.Join(runs, " / "), formatLoad(load))
		tableRow(&b, line)
	}
	if kinds["http"] {
		fmt.Fprintf(&b, "\n%s an HTTP GET of the program's API on its warm server, a new connection each time (no exec).\n", markHTTP)
	}
	if kinds["ready"] {
		fmt.Fprintf(&b, "\n%s exec to the line the server prints when it is ready (after its sync), then it is interrupted; "+
			"CPU from /proc/PID/stat (10 ms ticks), peak RSS from its VmHWM.\n", markReady)
	}
	if floor := r.rssFloor(); floor > 0 {
		fmt.Fprintf(&b, "\nPeak RSS of an exec-to-exit row comes from its rusage, which on Linux is never below the "+
			"measuring process's own peak (%s here): a vfork child keeps its parent's high-water mark at exec.\n", FormatKiB(float64(floor)))
	}
	b.WriteString("\nWall: exec to exit; CPU: user + system of the process and the children it waited for (rusage); " +
		"p50 and p95 interpolate between the closest ranks.\n\n")
	r.detail(&b)
	return b.String()
}

func (r Report) caption(b *strings.Builder) {
	kernel := ""
	if r.Kernel != "" {
		kernel = ", Linux " + r.Kernel
	}
	fmt.Fprintf(b, "Measured %s on %s (%d cores%s), ", r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.CPUModel, r.Cores, kernel)
	if r.Busy > 0 {
		fmt.Fprintf(b, "with %d processes spinning on the CPU beside the run", r.Busy)
	} else {
		b.WriteString("nothing added to the machine's load")
	}
	var commits []string
	for _, p := range r.Programs() {
		if c := r.Commits[p]; c != "" {
			commits = append(commits, p+" "+c)
		}
	}
	if len(commits) > 0 {
		b.WriteString("; commits: " + strings.Join(commits, ", "))
	}
	b.WriteString(".")
	if r.Workload != "" {
		b.WriteString(" Workload: " + r.Workload + ".")
	}
	b.WriteString("\n\n")
}

func (r Report) detail(b *strings.Builder) {
	tableRow(b, []string{"program", "row", "how", "runs", "wall p50", "p95", "min", "max", "CPU p50", "peak RSS p50", "load (1 min)"})
	tableRow(b, slices.Repeat([]string{"---"}, 11))
	for _, it := range r.Items {
		line := []string{it.Program, it.Row, it.Kind}
		switch {
		case it.Count != nil:
			line = append(line, "1", fmt.Sprintf("count %d", *it.Count), "", "", "", "", "")
		case it.Wall != nil:
			w := it.Wall
			line = append(line, fmt.Sprint(w.N), FormatMS(w.P50), FormatMS(w.P95), FormatMS(w.Min), FormatMS(w.Max),
				orDash(it.CPU, FormatMS), orDash(it.PeakRSS, FormatKiB))
		default:
			line = append(line, "0", "", "", "", "", "", "")
		}
		tableRow(b, append(line, formatLoad(it.Load)))
	}
}

func orDash(s *Summary, f func(float64) string) string {
	if s == nil {
		return "—"
	}
	return f(s.P50)
}

// widen returns the range that holds both a and b; -1 marks an unknown end.
func widen(a, b [2]float64) [2]float64 {
	if b[0] < 0 {
		return a
	}
	if a[0] < 0 {
		return b
	}
	return [2]float64{min(a[0], b[0]), max(a[1], b[1])}
}

// tableRow writes a Markdown table row, with any "|" in a cell escaped.
func tableRow(b *strings.Builder, cells []string) {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// rssFloor returns the highest RSSFloorKiB of r's items.
func (r Report) rssFloor() int64 {
	var f int64
	for _, it := range r.Items {
		f = max(f, it.RSSFloorKiB)
	}
	return f
}
