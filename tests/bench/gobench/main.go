// gobench: the Go baseline of `make bench`.  It generates the same workload
// as tests/bench_pprof.c (splitmix64, same seed and draw order) as a
// github.com/google/pprof/profile.Profile and times WriteUncompressed,
// Write (gzip level 6) and Parse.  Prints "key value" lines for run.sh:
// each timed step's wall time (NAME_ms) and CPU time, user and system, of
// all threads, the garbage collector's included (NAME_cpu_ms).
//
//	gobench [RUNS [OUT.pb.gz]]
package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/google/pprof/profile"
)

const (
	nStacks  = 10000
	depth    = 8
	nSamples = 100000
	nTasks   = 1000
)

var pool = [depth - 1]uint64{4, 16, 64, 256, 512, 1000, 1500}

var rngState uint64 = 0x5EED

func splitmix64() uint64 {
	rngState += 0x9E3779B97F4A7C15
	z := rngState
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func build() *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "polls", Unit: "count"},
			{Type: "wakes", Unit: "count"},
			{Type: "busy", Unit: "nanoseconds"},
			{Type: "scheduled", Unit: "nanoseconds"},
			{Type: "idle", Unit: "nanoseconds"},
		},
		DefaultSampleType: "idle",
		PeriodType:        &profile.ValueType{Type: "polls", Unit: "count"},
		Period:            1,
		TimeNanos:         1700000000000000000,
		DurationNanos:     5000000000,
		Comments:          []string{"asynctop bench"},
	}
	m := &profile.Mapping{ID: 1, File: "asynctop", HasFunctions: true}
	p.Mapping = []*profile.Mapping{m}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		id := uint64(len(p.Location) + 1)
		f := &profile.Function{ID: id, Name: name, SystemName: name}
		l := &profile.Location{ID: id, Mapping: m, Line: []profile.Line{{Function: f}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, l)
		locs[name] = l
		return l
	}
	var frame [depth - 1][]string
	for l := 0; l < depth-1; l++ {
		for k := uint64(0); k < pool[l]; k++ {
			frame[l] = append(frame[l], fmt.Sprintf("app/level%d/mod%d.py:coroutine_%d:%d",
				l, k%50, k, (k*31+uint64(l))%1000))
		}
	}
	tasks := make([]string, nTasks)
	for i := range tasks {
		tasks[i] = fmt.Sprintf("task-%d", i)
	}
	stacks := make([][]*profile.Location, nStacks)
	idx := make([][depth - 1]uint64, nStacks)
	for i := range idx {
		for l := 0; l < depth-1; l++ {
			idx[i][l] = splitmix64() % pool[l]
		}
	}
	for i := 0; i < nStacks; i++ {
		s := make([]*profile.Location, depth) // leaf first
		s[0] = loc(fmt.Sprintf("app/handlers.py:handle_%d:%d", i, i%997))
		for l := 0; l < depth-1; l++ {
			s[depth-1-l] = loc(frame[l][idx[i][l]])
		}
		stacks[i] = s
	}
	for j := 0; j < nSamples; j++ {
		task := uint64(j/nStacks)*100 + splitmix64()%100
		idle := int64(splitmix64() % 5000000000)
		busy := int64(splitmix64() % 10000000)
		sched := int64(splitmix64() % 1000000)
		polls := int64(1 + splitmix64()%1000)
		wakes := int64(splitmix64() % 500)
		n := int64(1 + splitmix64()%4)
		p.Sample = append(p.Sample, &profile.Sample{
			Location: stacks[j%nStacks],
			Value:    []int64{polls, wakes, busy, sched, idle},
			Label:    map[string][]string{"task": {tasks[task]}},
			NumLabel: map[string][]int64{"tasks": {n}},
			NumUnit:  map[string][]string{"tasks": {"tasks"}},
		})
	}
	return p
}

func median(t []float64) float64 {
	sort.Float64s(t)
	n := len(t)
	if n%2 == 1 {
		return t[n/2]
	}
	return (t[n/2-1] + t[n/2]) / 2
}

func ms(d time.Duration) float64 {
	return float64(d.Nanoseconds()) / 1e6
}

// cpuMs is the CPU time, user and system, of every thread of the process.
func cpuMs() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fmt.Fprintln(os.Stderr, "gobench: getrusage:", err)
		os.Exit(1)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// span is one timed step: its start on the wall clock and in CPU time.
type span struct {
	wall time.Time
	cpu  float64
}

func start() span {
	return span{time.Now(), cpuMs()}
}

// end stores the time since s in wall[i] and cpu[i].
func (s span) end(wall, cpu []float64, i int) {
	wall[i] = ms(time.Since(s.wall))
	cpu[i] = cpuMs() - s.cpu
}

func printSpan(name string, wall, cpu []float64) {
	fmt.Printf("%s_ms %.2f\n%s_cpu_ms %.2f\n", name, median(wall), name, median(cpu))
}

func main() {
	runs := 5
	if len(os.Args) > 1 {
		if n, err := strconv.Atoi(os.Args[1]); err == nil && n > 0 && n <= 32 {
			runs = n
		}
	}
	p := build()
	if err := p.CheckValid(); err != nil {
		fmt.Fprintln(os.Stderr, "gobench:", err)
		os.Exit(1)
	}
	fmt.Printf("runs %d\nsamples %d\nlocations %d\n", runs, len(p.Sample), len(p.Location))
	t := make([]float64, runs)
	c := make([]float64, runs)
	var raw, gz bytes.Buffer
	for i := 0; i < runs; i++ {
		raw = bytes.Buffer{}
		runtime.GC()
		s := start()
		if err := p.WriteUncompressed(&raw); err != nil {
			fmt.Fprintln(os.Stderr, "gobench:", err)
			os.Exit(1)
		}
		s.end(t, c, i)
	}
	printSpan("encode", t, c)
	fmt.Printf("encode_bytes %d\n", raw.Len())
	for i := 0; i < runs; i++ {
		gz = bytes.Buffer{}
		runtime.GC()
		s := start()
		if err := p.Write(&gz); err != nil {
			fmt.Fprintln(os.Stderr, "gobench:", err)
			os.Exit(1)
		}
		s.end(t, c, i)
	}
	printSpan("gzip", t, c)
	fmt.Printf("gzip_bytes %d\n", gz.Len())
	if len(os.Args) > 2 {
		if err := os.WriteFile(os.Args[2], gz.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gobench:", err)
			os.Exit(1)
		}
	}
	for i := 0; i < runs; i++ {
		runtime.GC()
		s := start()
		q, err := profile.Parse(bytes.NewReader(gz.Bytes()))
		s.end(t, c, i)
		if err != nil || len(q.Sample) != nSamples {
			fmt.Fprintln(os.Stderr, "gobench: parse:", err)
			os.Exit(1)
		}
	}
	printSpan("parse", t, c)
	// end to end: the saved bytes parsed and written again
	for i := 0; i < runs; i++ {
		runtime.GC()
		var out bytes.Buffer
		s := start()
		q, err := profile.Parse(bytes.NewReader(gz.Bytes()))
		if err == nil {
			err = q.Write(&out)
		}
		s.end(t, c, i)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gobench: parse and write:", err)
			os.Exit(1)
		}
	}
	printSpan("e2e", t, c)
}
