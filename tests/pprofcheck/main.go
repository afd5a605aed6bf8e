// pprofcheck: the Go oracle for asynctop's pprof files (docs/formats.md,
// "Checking a file").  It parses a profile with github.com/google/pprof/profile
// and asserts what `go tool pprof` accepts silently.
//
//	pprofcheck [-notask] FILE       check; prints "ok" or one line per defect
//	pprofcheck -fold METRIC FILE    collapsed stacks weighted by METRIC
//
// Exit status: 0 ok, 1 defects found, 2 usage or unreadable file.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/pprof/profile"
)

var layout = []struct{ typ, unit string }{
	{"polls", "count"},
	{"wakes", "count"},
	{"busy", "nanoseconds"},
	{"scheduled", "nanoseconds"},
	{"idle", "nanoseconds"},
}

// The optional figures' numeric labels and their units (model/sample.h).
var figures = map[string]string{
	"self_wakes":       "count",
	"max_poll":         "nanoseconds",
	"wakers":           "count",
	"poll_in_progress": "nanoseconds",
	"no_waker":         "count",
}

type checker struct {
	defects []string
}

func (c *checker) fail(format string, args ...interface{}) {
	c.defects = append(c.defects, fmt.Sprintf(format, args...))
}

func (c *checker) utf8(what, s string) {
	if !utf8.ValidString(s) {
		c.fail("%s is not valid UTF-8: %q", what, s)
	}
}

func (c *checker) types(p *profile.Profile) {
	seen := map[string]bool{}
	dflt := 0
	for _, t := range p.SampleType {
		if seen[t.Type] {
			c.fail("sample type %q appears twice", t.Type)
		}
		seen[t.Type] = true
		if strings.Contains(t.Type, "-") {
			c.fail("sample type %q contains '-'", t.Type)
		}
		if t.Type == p.DefaultSampleType {
			dflt++
		}
	}
	if dflt != 1 {
		c.fail("default sample type %q names %d types, want 1",
			p.DefaultSampleType, dflt)
	}
	if p.DefaultSampleType != "idle" {
		c.fail("default sample type is %q, want idle", p.DefaultSampleType)
	}
	if len(p.SampleType) != len(layout) {
		c.fail("%d sample types, want %d", len(p.SampleType), len(layout))
		return
	}
	for i, t := range p.SampleType {
		if t.Type != layout[i].typ || t.Unit != layout[i].unit {
			c.fail("sample type %d is %s/%s, want %s/%s", i, t.Type,
				t.Unit, layout[i].typ, layout[i].unit)
		}
	}
}

func (c *checker) header(p *profile.Profile) {
	if p.TimeNanos <= 0 {
		c.fail("time_nanos is %d, want > 0", p.TimeNanos)
	}
	if p.DurationNanos <= 0 {
		c.fail("duration_nanos is %d, want > 0", p.DurationNanos)
	}
	if p.PeriodType == nil {
		c.fail("period_type is not set")
	} else if p.PeriodType.Type != "polls" || p.PeriodType.Unit != "count" {
		c.fail("period_type is %s/%s, want polls/count",
			p.PeriodType.Type, p.PeriodType.Unit)
	}
	if p.Period != 1 {
		c.fail("period is %d, want 1", p.Period)
	}
	for i, s := range p.Comments {
		c.utf8(fmt.Sprintf("comment %d", i), s)
	}
	if len(p.Mapping) != 1 {
		c.fail("%d mappings, want 1", len(p.Mapping))
	} else if m := p.Mapping[0]; m.ID != 1 || m.File != "asynctop" || !m.HasFunctions {
		c.fail("mapping is id %d file %q has_functions %v, want 1 asynctop true",
			m.ID, m.File, m.HasFunctions)
	}
}

func (c *checker) tables(p *profile.Profile) {
	fkeys := map[string]uint64{}
	for i, f := range p.Function {
		if f.ID != uint64(i+1) {
			c.fail("function %d has id %d: ids not dense", i, f.ID)
		}
		c.utf8(fmt.Sprintf("function %d name", f.ID), f.Name)
		if f.Name == "" {
			c.fail("function %d has an empty name", f.ID)
		}
		k := fmt.Sprintf("%q %q %q %d", f.Name, f.SystemName, f.Filename, f.StartLine)
		if o, dup := fkeys[k]; dup {
			c.fail("functions %d and %d are the same (%q)", o, f.ID, f.Name)
		}
		fkeys[k] = f.ID
	}
	lkeys := map[string]uint64{}
	fused := map[uint64]bool{}
	for i, l := range p.Location {
		if l.ID != uint64(i+1) {
			c.fail("location %d has id %d: ids not dense", i, l.ID)
		}
		if len(l.Line) != 1 {
			c.fail("location %d has %d lines, want 1", l.ID, len(l.Line))
		}
		k := ""
		if l.Mapping != nil {
			k = fmt.Sprintf("%d", l.Mapping.ID)
		}
		k += fmt.Sprintf(" %x", l.Address)
		for _, ln := range l.Line {
			if ln.Function == nil {
				c.fail("location %d has a line with no function", l.ID)
				continue
			}
			fused[ln.Function.ID] = true
			k += fmt.Sprintf(" %d:%d", ln.Function.ID, ln.Line)
			if ln.Function.ID != l.ID {
				c.fail("location %d points at function %d, want %d",
					l.ID, ln.Function.ID, l.ID)
			}
		}
		if o, dup := lkeys[k]; dup {
			c.fail("locations %d and %d are the same", o, l.ID)
		}
		lkeys[k] = l.ID
	}
	for _, f := range p.Function {
		if !fused[f.ID] {
			c.fail("function %d (%q) is not used", f.ID, f.Name)
		}
	}
}

func (c *checker) samples(p *profile.Profile, notask bool) {
	used := map[uint64]bool{}
	seen := map[string]int{}
	for i, s := range p.Sample {
		if len(s.Location) == 0 {
			c.fail("sample %d has an empty stack", i)
		}
		key := ""
		for _, l := range s.Location {
			used[l.ID] = true
			key += fmt.Sprintf("%d,", l.ID)
		}
		zero := true
		for _, v := range s.Value {
			if v < 0 {
				c.fail("sample %d has a negative value %d", i, v)
			}
			if v != 0 {
				zero = false
			}
		}
		if zero {
			c.fail("sample %d has only zero values", i)
		}
		task := s.Label["task"]
		// the other stack's leaf: at most one of the two, never with -notask
		leaves := 0
		for _, k := range []string{"parked_at", "spawned_at"} {
			l, ok := s.Label[k]
			if !ok {
				continue
			}
			leaves++
			if len(l) != 1 || l[0] == "" {
				c.fail("sample %d has %s labels %q, want one non-empty", i, k, l)
			} else {
				c.utf8(fmt.Sprintf("sample %d %s", i, k), l[0])
				key += "|" + k + "=" + l[0]
			}
		}
		if leaves > 1 {
			c.fail("sample %d has both parked_at and spawned_at", i)
		}
		if notask {
			if len(s.Label) != 0 {
				c.fail("sample %d has string labels %v, want none", i, s.Label)
			}
		} else {
			if len(task) != 1 || task[0] == "" {
				c.fail("sample %d has task labels %q, want one non-empty", i, task)
			} else {
				c.utf8(fmt.Sprintf("sample %d task", i), task[0])
				key += "|" + task[0]
			}
			if len(s.Label) != 1+leaves {
				c.fail("sample %d has string labels %v, want task and at most one leaf", i, s.Label)
			}
		}
		n := s.NumLabel["tasks"]
		if len(n) != 1 || n[0] < 1 {
			c.fail("sample %d has tasks labels %v, want one >= 1", i, n)
		}
		if u := s.NumUnit["tasks"]; len(u) != 1 || u[0] != "tasks" {
			c.fail("sample %d has tasks units %v, want [tasks]", i, u)
		}
		for k, v := range s.NumLabel {
			if k == "tasks" {
				continue
			}
			unit, known := figures[k]
			if !known {
				c.fail("sample %d has an unknown numeric label %q", i, k)
				continue
			}
			if len(v) != 1 || v[0] < 0 {
				c.fail("sample %d has %s labels %v, want one >= 0", i, k, v)
			}
			if u := s.NumUnit[k]; len(u) != 1 || u[0] != unit {
				c.fail("sample %d has %s units %v, want [%s]", i, k, u, unit)
			}
		}
		if o, dup := seen[key]; dup {
			c.fail("samples %d and %d have the same stack and task", o, i)
		}
		seen[key] = i
	}
	for _, l := range p.Location {
		if !used[l.ID] {
			c.fail("location %d is not used by any sample", l.ID)
		}
	}
}

// isControl is the set the collapsed writer turns into a space (encode/utf8.c
// utf8_is_control): C0, DEL, C1, the line and paragraph separators, and the
// bidi overrides and isolates.
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7F && r <= 0x9F) || r == 0x2028 || r == 0x2029 ||
		(r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// utf8Seq is the length of the valid sequence at the start of s, or 0 and
// the length of its maximal invalid subpart (at least 1).
func utf8Seq(s string) (int, int) {
	c := s[0]
	lo, hi := byte(0x80), byte(0xBF)
	var n int
	switch {
	case c < 0x80:
		return 1, 0
	case c >= 0xC2 && c <= 0xDF:
		n = 2
	case c >= 0xE0 && c <= 0xEF:
		n = 3
	case c >= 0xF0 && c <= 0xF4:
		n = 4
	default:
		return 0, 1
	}
	switch c {
	case 0xE0:
		lo = 0xA0
	case 0xED:
		hi = 0x9F
	case 0xF0:
		lo = 0x90
	case 0xF4:
		hi = 0x8F
	}
	for i := 1; i < n; i++ {
		if i >= len(s) || s[i] < lo || s[i] > hi {
			return 0, i
		}
		lo, hi = 0x80, 0xBF
	}
	return n, 0
}

// collapsedFrame applies the collapsed-stack rules (as docs/formats.md
// states them) to one frame: each maximal invalid UTF-8
// subpart -> U+FFFD, ';' -> ':', control characters -> ' ', empty ->
// [unknown].
func collapsedFrame(s string) string {
	if s == "" {
		return "[unknown]"
	}
	var b strings.Builder
	for len(s) > 0 {
		n, bad := utf8Seq(s)
		if n == 0 {
			b.WriteRune(utf8.RuneError)
			s = s[bad:]
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[:n])
		switch {
		case r == ';':
			b.WriteByte(':')
		case isControl(r):
			b.WriteByte(' ')
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// guard replaces the space before a trailing run of digits and dots, so
// that flamegraph.pl does not read it as a second count.
func guard(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] >= '0' && s[i-1] <= '9' || s[i-1] == '.') {
		i--
	}
	if i < len(s) && i > 0 && s[i-1] == ' ' {
		return s[:i-1] + "_" + s[i:]
	}
	return s
}

func fold(p *profile.Profile, metric string) error {
	idx := -1
	for i, t := range p.SampleType {
		if t.Type == metric {
			idx = i
		}
	}
	if idx < 0 {
		return fmt.Errorf("no sample type %q", metric)
	}
	sums := map[string]uint64{}
	for _, s := range p.Sample {
		if len(s.Location) == 0 || s.Value[idx] <= 0 {
			continue
		}
		var frames []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			ln := s.Location[i].Line
			for j := len(ln) - 1; j >= 0; j-- {
				name := ""
				if ln[j].Function != nil {
					name = ln[j].Function.Name
				}
				frames = append(frames, collapsedFrame(name))
			}
		}
		k := guard(strings.Join(frames, ";"))
		v := uint64(s.Value[idx])
		if sums[k] > math.MaxUint64-v {
			sums[k] = math.MaxUint64
		} else {
			sums[k] += v
		}
	}
	type line struct {
		stack string
		v     uint64
	}
	var lines []line
	for k, v := range sums {
		if v > 0 {
			lines = append(lines, line{k, v})
		}
	}
	sort.Slice(lines, func(a, b int) bool {
		if lines[a].v != lines[b].v {
			return lines[a].v > lines[b].v
		}
		return lines[a].stack < lines[b].stack
	})
	w := os.Stdout
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%s %d\n", l.stack, l.v); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	notask := flag.Bool("notask", false, "the profile was written without the task label")
	metric := flag.String("fold", "", "print collapsed stacks weighted by this sample type")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: pprofcheck [-notask] FILE\n       pprofcheck -fold METRIC FILE\n")
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pprofcheck:", err)
		os.Exit(2)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pprofcheck: parsing:", err)
		os.Exit(1)
	}
	if *metric != "" {
		if err := fold(p, *metric); err != nil {
			fmt.Fprintln(os.Stderr, "pprofcheck:", err)
			os.Exit(1)
		}
		return
	}
	var c checker
	c.types(p)
	c.header(p)
	c.tables(p)
	c.samples(p, *notask)
	if len(c.defects) > 0 {
		for _, d := range c.defects {
			fmt.Println(d)
		}
		os.Exit(1)
	}
	fmt.Printf("ok: %d samples, %d locations\n", len(p.Sample), len(p.Location))
}
