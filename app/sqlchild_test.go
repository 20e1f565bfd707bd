package app

import (
	"testing"

	"github.com/lazuli-app/lazuli/views"
)

// TestSQLConsoleErrors runs writes and a bad query in the console's real
// child: a write says the console is read-only, in one line; other errors
// come without SQLite's result code.
func TestSQLConsoleErrors(t *testing.T) {
	t.Setenv(asCLIEnv, "1") // the console's child process is this test binary
	pw, _, _ := insightWindow(t)
	sw := &sqlWindow{pw: pw}
	sw.console = views.NewSQLConsole(sw, nil, nil)
	tests := []struct{ query, want string }{
		{"DELETE FROM events", "the console is read-only: events can be read with SELECT, not changed"},
		{"UPDATE sessions SET name = 'x'", "the console is read-only: sessions can be read with SELECT, not changed"},
		{"CREATE TABLE t(x)", "the console is read-only: only SELECT queries run here"},
		{"SELECT * FROM nosuch", "no such table: nosuch"},
	}
	for _, tt := range tests {
		sw.RunSQL(tt.query)
		pw.wg.Wait()
		if got := sw.console.Status(); got != tt.want {
			t.Errorf("RunSQL(%q) status = %q, want %q", tt.query, got, tt.want)
		}
	}
}

func TestConsoleMessage(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"SQL logic error: cannot modify events because it is a view (1)", "the console is read-only: events can be read with SELECT, not changed"},
		{"attempt to write a readonly database (8)", "the console is read-only: only SELECT queries run here"},
		{"refused: lazuli sql is read-only (insert)", "the console is read-only: only SELECT queries run here"},
		{"sql: SQL logic error: near \"SELEC\": syntax error (1)", "near \"SELEC\": syntax error"},
		{"query interrupted after 10s", "query interrupted after 10s"},
	}
	for _, tt := range tests {
		if got := consoleMessage(tt.msg); got != tt.want {
			t.Errorf("consoleMessage(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
