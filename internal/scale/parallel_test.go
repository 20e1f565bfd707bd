package scale

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

func TestSearchAZUREALParallel(t *testing.T) {
	ctx := context.Background()
	t.Setenv(store.CacheDirEnv, t.TempDir())
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "main", "s", []codec.Event{
		codec.UserMessage("please refactor quuxparser now"),
		codec.AssistantText("I will use **Zorblex** here"),
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"grep -rn wibblecmd ."}`)),
		codec.ToolResult("t1", "Bash", nil, "line one\ngronkresult here", false),
	}); err != nil {
		t.Fatal(err)
	}
	m, err := SearchAZUREALParallel(ctx, st, "QUUX")
	if err != nil || len(m) != 1 || m[0].Seq != 1 {
		t.Errorf("SearchAZUREALParallel(QUUX) = %v, %v", m, err)
	}
	if m, _ := SearchAZUREALParallel(ctx, st, "zorblex"); len(m) != 1 || m[0].Seq != 2 {
		t.Errorf("SearchAZUREALParallel(zorblex) = %v", m)
	}
	if m, _ := SearchAZUREALParallel(ctx, st, "gronkresult"); len(m) != 0 {
		t.Errorf("SearchAZUREALParallel found a tool result: %v", m)
	}
}
