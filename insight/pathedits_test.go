package insight

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestPathEdits: the changes of one file, newest first, are RecentEdits'
// rows of that file, whether it is named as indexed or by its last
// elements; a path that only shares a suffix without a slash (xf1.go),
// or names another file, matches none.
func TestPathEdits(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 2, 3)
	x := mustIndex(t, st)
	all, err := x.Files().RecentEdits(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var want []EditRow
	for _, e := range all {
		if e.Path == "/w/src/f1.go" {
			want = append(want, e)
		}
	}
	if len(want) != 2 {
		t.Fatalf("the fill has %d edits of f1.go, want 2", len(want))
	}
	for _, p := range []string{"/w/src/f1.go", "src/f1.go", "f1.go"} {
		got, err := x.Files().Edits(ctx, p, 100)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("PathEdits(%q) = %+v, %v; want %+v", p, got, err, want)
		}
	}
	for _, p := range []string{"xf1.go", "f1", "src/f9.go", ""} {
		if got, _ := x.Files().Edits(ctx, p, 100); len(got) != 0 {
			t.Errorf("PathEdits(%q) = %s", p, fmt.Sprint(got))
		}
	}
	if got, _ := x.Files().Edits(ctx, "f1.go", 1); len(got) != 1 || got[0] != want[0] {
		t.Errorf("limit 1: %+v", got)
	}
}
