package teamsync

import (
	"context"
	"errors"
	"os"
	"time"
)

// WatchInterval is how often Watch looks at the stores.
const WatchInterval = 2 * time.Second

// Watch calls push once, then again whenever one of the files at paths
// (or its journal or WAL) changes size or modification time, looking every
// interval, until ctx ends; then it returns nil. An error from push ends
// the watch with that error. At most one push runs at a time, so a store
// that keeps changing is pushed at most once per interval.
func Watch(ctx context.Context, paths []string, interval time.Duration, push func() error) error {
	last := marks(paths)
	if err := push(); err != nil {
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		now := marks(paths)
		if now == last {
			continue
		}
		last = now
		if err := push(); err != nil {
			if ctx.Err() != nil && errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
	}
}

// marks sums up the sizes and times of the files, and their journals.
func marks(paths []string) string {
	var b []byte
	for _, p := range paths {
		for _, f := range []string{p, p + "-journal", p + "-wal"} {
			if fi, err := os.Stat(f); err == nil {
				b = append(b, fi.ModTime().Format(time.RFC3339Nano)...)
				b = append(b, byte(fi.Size()), byte(fi.Size()>>8), byte(fi.Size()>>16), byte(fi.Size()>>24))
			}
			b = append(b, '|')
		}
	}
	return string(b)
}
