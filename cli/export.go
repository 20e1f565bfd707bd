package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

// exportFlags are the options of `lazuli export`.
type exportFlags struct {
	store, format, out                          string
	redact, allowSecrets, force, scanOnly, json bool
}

// exportResult is what `lazuli export --json` prints.
type exportResult struct {
	Session    int64            `json:"session"`
	Format     export.Format    `json:"format"`
	Path       string           `json:"path"` // "" when nothing was written
	Bytes      int64            `json:"bytes"`
	Events     int              `json:"events"`
	Redactions int              `json:"redactions"`
	Findings   []export.Finding `json:"findings"`
}

func runExport(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("export", env)
	var f exportFlags
	fs.StringVar(&f.store, "store", "", "store file or folder")
	fs.StringVar(&f.format, "format", "", "md, html or json (default: from -o's extension, else md)")
	fs.StringVar(&f.out, "o", "", "output file, - for stdout (default: SESSION-NAME.EXT in the current folder)")
	fs.StringVar(&f.out, "output", "", "same as -o")
	fs.BoolVar(&f.redact, "redact", false, "replace possible secrets with [REDACTED:rule]")
	fs.BoolVar(&f.allowSecrets, "allow-secrets", false, "export possible secrets as they are")
	fs.BoolVar(&f.force, "force", false, "replace an existing output file")
	fs.BoolVar(&f.scanOnly, "scan-only", false, "only scan for secrets; exit 1 when any is found")
	fs.BoolVar(&f.json, "json", false, "print the findings (--scan-only) or the result as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one SESSION")
	}
	format, err := f.check()
	if err != nil {
		return err
	}
	st, sess, err := openSession(ctx, env, f.store, pos[0], true)
	if err != nil {
		return err
	}
	defer st.Close()
	defer reportUnreadable(env, st) // before Close: runs first
	src, err := export.Load(ctx, st, sess.ID)
	if err != nil {
		return err
	}
	rep := export.Scan(src)
	if f.scanOnly {
		return reportScan(env, f.json, sess.ID, rep)
	}
	res := exportResult{Session: sess.ID, Format: format, Events: len(src.Events), Findings: nonNil(rep.Findings)}
	if len(rep.Findings) > 0 && !f.redact && !f.allowSecrets {
		if f.json {
			if err := writeJSON(env.Stdout, res); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(env.Stderr, "S%d holds %s:\n", sess.ID, display.Plural(int64(len(rep.Findings)), "possible secret"))
			printFindings(env.Stderr, rep)
		}
		return fmt.Errorf("found %s; re-run with --redact to mask them or --allow-secrets to export as is",
			display.Plural(int64(len(rep.Findings)), "possible secret"))
	}
	if f.redact {
		src = export.Redact(src, rep)
	}
	res.Redactions = src.Redactions
	if err := writeExport(env, &f, format, src, sess, &res); err != nil {
		return err
	}
	return reportExport(env, &f, sess, rep, res)
}

// check validates the flag combination and returns the format: --format,
// else the one -o's extension names, else Markdown.
func (f *exportFlags) check() (export.Format, error) {
	switch {
	case f.redact && f.allowSecrets:
		return "", usagef("--redact and --allow-secrets cannot be combined")
	case f.scanOnly && (f.out != "" || f.redact || f.allowSecrets || f.force || f.format != ""):
		return "", usagef("--scan-only writes nothing: drop -o, --format, --redact, --allow-secrets and --force")
	case f.out == "-" && f.json:
		return "", usagef("-o - and --json both write to stdout")
	}
	if f.format != "" {
		format, err := export.ParseFormat(f.format)
		if err != nil {
			return "", usagef("%v", err)
		}
		return format, nil
	}
	if f.out == "" || f.out == "-" {
		return export.Markdown, nil
	}
	format, ok := export.FormatOf(f.out)
	if !ok {
		return "", usagef("cannot tell the format of %s from its extension; add --format md, html or json", f.out)
	}
	return format, nil
}

// writeExport renders src to the output: stdout, or a file written
// atomically (never replacing one without --force).
func writeExport(env *Env, f *exportFlags, format export.Format, src export.Source, sess store.Session, res *exportResult) error {
	render := func(w io.Writer) error {
		cw := &countWriter{w: w}
		err := export.Render(cw, src, format)
		res.Bytes = cw.n
		return err
	}
	if f.out == "-" {
		return render(env.Stdout)
	}
	path := f.out
	if path == "" {
		path = export.DefaultFileName(sess, format)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	err := export.WriteFile(path, f.force, render)
	if errors.Is(err, export.ErrExists) {
		return fmt.Errorf("%s exists; add --force to replace it", path)
	}
	if err != nil {
		return err
	}
	res.Path = path
	return nil
}

// reportExport says what was written: a line on stdout, or --json's
// object; a warning on stderr when secrets were exported as they are.
func reportExport(env *Env, f *exportFlags, sess store.Session, rep export.Report, res exportResult) error {
	if len(rep.Findings) > 0 && f.allowSecrets {
		fmt.Fprintf(env.Stderr, "lazuli export: warning: exported %s as is\n", display.Plural(int64(len(rep.Findings)), "possible secret"))
	}
	if f.json {
		return writeJSON(env.Stdout, res)
	}
	if res.Path == "" {
		return nil // the export itself went to stdout
	}
	line := fmt.Sprintf("exported S%d to %s (%s, %s, %s)", sess.ID, res.Path, res.Format,
		display.Plural(int64(res.Events), "event"), display.Bytes(res.Bytes))
	if res.Redactions > 0 {
		line += fmt.Sprintf("; redacted %s (%s)", display.Plural(int64(len(rep.Findings)), "possible secret"),
			display.Plural(int64(res.Redactions), "occurrence"))
	}
	fmt.Fprintln(env.Stdout, line)
	return nil
}

// reportScan prints the findings of --scan-only; finding any is an error
// (exit 1), so scripts can gate on it.
func reportScan(env *Env, asJSON bool, id int64, rep export.Report) error {
	if asJSON {
		if err := writeJSON(env.Stdout, nonNil(rep.Findings)); err != nil {
			return err
		}
	} else if len(rep.Findings) == 0 {
		fmt.Fprintf(env.Stdout, "no secrets found in S%d (%s scanned)\n", id, display.Bytes(rep.Bytes))
	} else {
		printFindings(env.Stdout, rep)
	}
	if len(rep.Findings) > 0 {
		return fmt.Errorf("found %s in S%d", display.Plural(int64(len(rep.Findings)), "possible secret"), id)
	}
	return nil
}

// printFindings writes one line per finding: what, where it first occurs,
// the masked preview, and how often it occurs.
func printFindings(w io.Writer, rep export.Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range rep.Findings {
		where := printable.Line(f.Locations[0].String())
		if f.Count > 1 {
			where += fmt.Sprintf(" (+%d more)", f.Count-1)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Rule, where, printable.Line(f.Preview))
	}
	_ = tw.Flush() // a failed write to stderr or stdout cannot be reported anywhere
}

func nonNil(fs []export.Finding) []export.Finding {
	if fs == nil {
		return []export.Finding{}
	}
	return fs
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
