package store

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// getFresh returns session id of the store at path as Get counts it with
// no list counts at hand: a new Store with an empty cache folder.
func getFresh(t *testing.T, path string, id int64) (Session, error) {
	t.Helper()
	useCacheDir(t, t.TempDir())
	s := mustOpenPath(t, path)
	return s.Sessions().Get(context.Background(), id)
}

// TestGetWithListCounts: once a list has counted, Get takes a session's
// counts from the list's (a 50,000-event session's own count reads all
// its rows and their data) and they stay right whoever changes the file.
func TestGetWithListCounts(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		id     int64
		change func(t *testing.T, s, other *Store)
	}{
		{"Nothing", 1, func(*testing.T, *Store, *Store) {}},
		{"AppendHere", 1, func(t *testing.T, s, _ *Store) {
			mustAppend(t, s, 1, codec.UserMessage("more"), codec.AssistantText("reply"))
		}},
		{"AppendElsewhere", 2, func(t *testing.T, _, o *Store) {
			mustAppend(t, o, 2, newBenchGen(5).events(30)...)
		}},
		{"CompactElsewhere", 2, func(t *testing.T, _, o *Store) {
			if _, err := o.Compactions().Add(ctx, 2, 5, "later"); err != nil {
				t.Fatal(err)
			}
		}},
		{"DeleteElsewhere", 6, func(t *testing.T, _, o *Store) {
			if err := o.Sessions().Delete(ctx, 6); err != nil {
				t.Fatal(err)
			}
		}},
		{"EmptySession", 4, func(*testing.T, *Store, *Store) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useCacheDir(t, t.TempDir())
			s := mustOpen(t)
			fillListStore(t, s, 12, 10)
			if _, err := s.Sessions().List(ctx, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Sessions().Get(ctx, tt.id); err != nil { // the counts are known unchanged from here
				t.Fatal(err)
			}
			tt.change(t, s, mustOpenPath(t, s.Path()))
			got, err := s.Sessions().Get(ctx, tt.id)
			want, wantErr := getFresh(t, s.Path(), tt.id)
			if (err != nil || wantErr != nil) && !(errors.Is(err, ErrNotFound) && errors.Is(wantErr, ErrNotFound)) {
				t.Fatalf("Get(%d) = %v, a fresh count %v", tt.id, err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Get(%d) after the change = %+v, want %+v (a fresh count)", tt.id, got, want)
			}
		})
	}
}
