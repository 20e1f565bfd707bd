package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/store"
)

// fakeAWSKeyID is built at run time so that no key-shaped literal sits in
// the source.
var fakeAWSKeyID = "AK" + "IA" + "Q3EGRT7NBVWX5LZM"

// exportStore writes a store in a temp folder with S1 (clean) and S2 (an
// AWS key ID in a tool result) and returns the folder and the store path.
func exportStore(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clean := []codec.Event{codec.UserMessage("List the files"), codec.AssistantText("Here they are."), codec.Complete(true, 1200, 0.01)}
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "main", "Clean session", clean); err != nil {
		t.Fatal(err)
	}
	leaky := []codec.Event{
		codec.UserMessage("Show the credentials file"),
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"cat ~/.aws/credentials"}`)),
		codec.ToolResult("t1", "Bash", nil, "[default]\naws_access_key_id = "+fakeAWSKeyID+"\n", false),
		codec.AssistantText("Your key is " + fakeAWSKeyID + "."),
	}
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "main", "", leaky); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func TestExportClean(t *testing.T) {
	dir, storePath := exportStore(t)
	before := fileHash(t, storePath)
	code, out, errOut := run(t, dir, "export", "S1")
	if code != 0 {
		t.Fatalf("export exit %d: %s", code, errOut)
	}
	want := filepath.Join(dir, "S1-clean-session.md")
	if !strings.Contains(out, "exported S1 to "+want+" (Markdown, 3 events, ") {
		t.Errorf("export printed %q", out)
	}
	b, err := os.ReadFile(want)
	if err != nil || !strings.HasPrefix(string(b), "# Clean session\n") {
		t.Fatalf("output %q: %v", b, err)
	}

	// An existing file is kept unless --force.
	code, _, errOut = run(t, dir, "export", "S1")
	if code != ExitError || !strings.Contains(errOut, "exists; add --force to replace it") {
		t.Errorf("second export: exit %d, %q", code, errOut)
	}
	if code, _, errOut = run(t, dir, "export", "S1", "--force"); code != 0 {
		t.Errorf("--force: exit %d, %q", code, errOut)
	}

	// The format follows -o's extension; --format wins.
	for _, tc := range []struct {
		args   []string
		file   string
		prefix string
	}{
		{[]string{"-o", "s.html"}, "s.html", "<!DOCTYPE html>"},
		{[]string{"-o", "s.json"}, "s.json", "{\n  \"format\": \"lazuli-export\""},
		{[]string{"-o", "s.txt", "--format", "markdown"}, "s.txt", "# Clean session"},
	} {
		args := append([]string{"export", "1"}, tc.args...)
		if code, _, errOut := run(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, errOut)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, tc.file)); !strings.HasPrefix(string(b), tc.prefix) {
			t.Errorf("%v wrote %.60q", args, b)
		}
	}

	// -o - writes to stdout.
	code, out, _ = run(t, dir, "export", "S1", "-o", "-", "--format", "json")
	var doc export.JSONDocument
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Events) != 3 {
		t.Errorf("-o -: exit %d, %.80q", code, out)
	}
	if fileHash(t, storePath) != before {
		t.Error("export changed the store")
	}
}

func TestExportSecrets(t *testing.T) {
	dir, storePath := exportStore(t)
	before := fileHash(t, storePath)

	// Found secrets stop the export and are listed; nothing is written.
	code, out, errOut := run(t, dir, "export", "S2")
	if code != ExitError || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"S2 holds 1 possible secret:", "aws-access-key-id", "#3 · Bash result, line 2 (+1 more)", "AKIA…(20 chars)",
		"lazuli export: found 1 possible secret; re-run with --redact to mask them or --allow-secrets to export as is"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, fakeAWSKeyID) {
		t.Error("stderr shows the secret")
	}
	if _, err := os.Stat(filepath.Join(dir, "S2.md")); !os.IsNotExist(err) {
		t.Errorf("a file was written: %v", err)
	}

	// --scan-only: exit 1 with the findings, as a table or JSON.
	code, out, errOut = run(t, dir, "export", "S2", "--scan-only", "--json")
	var findings []export.Finding
	if code != ExitError || json.Unmarshal([]byte(out), &findings) != nil || len(findings) != 1 || findings[0].Count != 2 ||
		findings[0].Locations[0].Seq != 3 || !strings.Contains(errOut, "found 1 possible secret in S2") {
		t.Errorf("--scan-only --json: exit %d, %s, %s", code, out, errOut)
	}
	if code, out, _ = run(t, dir, "export", "S1", "--scan-only", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("--scan-only on a clean session: exit %d, %q", code, out)
	}

	// --redact masks every occurrence, in every format.
	for _, f := range []string{"md", "html", "json"} {
		code, out, errOut = run(t, dir, "export", "S2", "--redact", "-o", "red."+f)
		if code != 0 || !strings.Contains(out, "redacted 1 possible secret (2 occurrences)") {
			t.Fatalf("--redact %s: exit %d, %q, %q", f, code, out, errOut)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "red."+f))
		if strings.Contains(string(b), fakeAWSKeyID) || !strings.Contains(string(b), "[REDACTED:aws-access-key-id]") {
			t.Errorf("red.%s not redacted:\n%s", f, b)
		}
	}

	// --allow-secrets exports as is, with a warning.
	code, _, errOut = run(t, dir, "export", "S2", "--allow-secrets", "-o", "raw.md")
	b, _ := os.ReadFile(filepath.Join(dir, "raw.md"))
	if code != 0 || !strings.Contains(string(b), fakeAWSKeyID) || !strings.Contains(errOut, "warning: exported 1 possible secret as is") {
		t.Errorf("--allow-secrets: exit %d, %q", code, errOut)
	}
	if fileHash(t, storePath) != before {
		t.Error("export changed the store")
	}
}

func TestExportErrors(t *testing.T) {
	dir, _ := exportStore(t)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"export"}, ExitUsage, "want one SESSION"},
		{[]string{"export", "S1", "--redact", "--allow-secrets"}, ExitUsage, "cannot be combined"},
		{[]string{"export", "S1", "--scan-only", "-o", "x.md"}, ExitUsage, "--scan-only writes nothing"},
		{[]string{"export", "S1", "-o", "-", "--json"}, ExitUsage, "both write to stdout"},
		{[]string{"export", "S1", "-o", "notes.txt"}, ExitUsage, "cannot tell the format of notes.txt"},
		{[]string{"export", "S1", "--format", "pdf"}, ExitUsage, `unknown format "pdf"`},
		{[]string{"export", "S9"}, ExitError, "no session S9 in"},
		{[]string{"export", "S1", "--store", "missing.azs"}, ExitError, "no session store at"},
		{[]string{"export", "S1", "-o", filepath.Join("no", "such", "folder", "x.md")}, ExitError, "no such file or directory"},
	} {
		code, _, errOut := run(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d, %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.azs")); !os.IsNotExist(err) {
		t.Error("export created a store")
	}
}
