package windowbench

// The actions a session of the window is driven through, each timed from
// its input point to the frame of its ready point.

import (
	"strings"
	"time"
)

// switches alternates between the small and the big session.
func (s *session) switches(samples Samples) error {
	refs := map[string]string{}
	var want []string
	for _, name := range []string{s.cfg.Small, s.cfg.Big} {
		if name != "" {
			refs[name] = strings.TrimPrefix(name, "bench-") // named bench-S<id> by Prepare
			want = append(want, refs[name])
		}
	}
	if err := s.filterTo("bench-", want); err != nil {
		return err
	}
	s.settle()
	for range s.cfg.PerStart {
		bigAction := "switch_50k"
		if s.cfg.BigCount < 5000 {
			bigAction = "switch_400"
		}
		for _, step := range []struct{ name, action string }{{s.cfg.Small, "switch_400"}, {s.cfg.Big, bigAction}} {
			if step.name == "" {
				continue
			}
			ref := refs[step.name]
			s.settle()
			t0 := time.Now()
			if err := s.clickRow(ref); err != nil {
				return err
			}
			d, err := s.timed("select "+ref, "show "+ref, t0)
			if err != nil {
				return err
			}
			samples[step.action] = append(samples[step.action], d)
		}
	}
	return nil
}

// showBig shows the big session.
func (s *session) showBig() error {
	big := strings.TrimPrefix(s.cfg.Big, "bench-")
	if err := s.filterTo("bench-", []string{big}); err != nil {
		return err
	}
	s.settle()
	t0 := time.Now()
	if err := s.clickRow(big); err != nil {
		return err
	}
	_, err := s.waitFrame("show "+big, t0)
	return err
}

// findAndKeys measures Ctrl+Home/End and Ctrl+F's next match in the big
// session, which the switches left shown.
func (s *session) findAndKeys(samples Samples) error {
	for range s.cfg.PerStart {
		for _, k := range []struct{ key, detail string }{{"ctrl+Home", "home"}, {"ctrl+End", "end"}} {
			s.settle()
			t0 := time.Now()
			if _, err := s.xdo("key", k.key); err != nil {
				return err
			}
			d, err := s.timed(k.detail, k.detail, t0)
			if err != nil {
				return err
			}
			samples["home_end"] = append(samples["home_end"], d)
		}
	}
	if s.cfg.Find == "" {
		return nil
	}
	if _, err := s.xdo("key", "ctrl+f", "type", "--delay", "20", s.cfg.Find); err != nil {
		return err
	}
	for range s.cfg.PerStart * 2 {
		s.settle()
		t0 := time.Now()
		if _, err := s.xdo("key", "Return"); err != nil {
			return err
		}
		d, err := s.timed("find_next", "find_next", t0)
		if err != nil {
			return err
		}
		samples["find_next"] = append(samples["find_next"], d)
	}
	_, err := s.xdo("key", "Escape")
	return err
}

// searches types each query into Ctrl+K and opens its first hit.
func (s *session) searches(samples Samples) error {
	for i := range s.cfg.PerStart {
		q := s.cfg.Queries[i%len(s.cfg.Queries)]
		s.settle()
		if _, err := s.xdo("key", "ctrl+k"); err != nil {
			return err
		}
		time.Sleep(300 * time.Millisecond) // the panel opens
		t0 := time.Now()
		if _, err := s.xdo("key", "ctrl+a", "BackSpace", "type", "--delay", "40", q); err != nil {
			return err
		}
		d, err := s.timed("search "+q, "search "+q, t0)
		if err != nil {
			return err
		}
		samples["search"] = append(samples["search"], d)
		s.settle()
		t1 := time.Now()
		if _, err := s.xdo("key", "Return"); err != nil {
			return err
		}
		d, err = s.timed("open_hit", "open_hit", t1)
		if err != nil {
			return err
		}
		samples["open_hit"] = append(samples["open_hit"], d)
	}
	return nil
}

// resizes narrows the window from 1600 to 800 px, widening it back between.
func (s *session) resizes(samples Samples) error {
	for range s.cfg.PerStart {
		if _, err := s.resize(wideW, wideH); err != nil {
			return err
		}
		d, err := s.resize(narrowW, wideH)
		if err != nil {
			return err
		}
		samples["resize"] = append(samples["resize"], d)
	}
	return nil
}
