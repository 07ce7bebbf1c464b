package testkit

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompareChain(t *testing.T) {
	want := ChainAnswer{Protocol: "http", Start: "a", Targets: map[string]ChainTarget{"a": {ID: "a", ConnectTimeout: "5000ms"}},
		Failover: map[string][]string{"resolver:a": {"b", "a"}}}
	got := ChainAnswer{Protocol: "http", Start: "a", Targets: map[string]ChainTarget{"a": {ID: "a", ConnectTimeout: "5s"}},
		Failover: map[string][]string{"resolver:a": {"b", "a"}}}
	for _, tt := range []struct {
		name         string
		change       func(a *ChainAnswer)
		problem      string
		startDropped bool
	}{
		{"the same, timeouts compared as durations", func(*ChainAnswer) {}, "", false},
		{"the start listed again by Consul", func(a *ChainAnswer) { a.Failover = map[string][]string{"resolver:a": {"b"}} }, "", true},
		{"another protocol", func(a *ChainAnswer) { a.Protocol = "tcp" }, "Consul: http start a; meshscope: tcp start a", false},
		{"another failover list", func(a *ChainAnswer) { a.Failover = nil }, "failover: Consul [b a]; meshscope []", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := got
			tt.change(&g)
			problem, startDropped := CompareChain(want, g)
			assert.Equal(t, tt.problem, problem)
			assert.Equal(t, tt.startDropped, startDropped)
		})
	}
	_, dropped := CompareChain(want, ChainAnswer{Protocol: "http", Start: "a", Targets: map[string]ChainTarget{"a": {ID: "a", ConnectTimeout: "4s"}},
		Failover: want.Failover})
	assert.False(t, dropped)
}

func TestReplay(t *testing.T) {
	r := Replay{
		Leave:   func(w Write) string { return map[bool]string{true: "left out"}[w.Error == "enterprise"] },
		Carries: func(w Write, reason string) bool { return reason == "x: "+w.Error },
		Agree:   map[string]string{"": "accepted", "store": "refused at store"},
	}
	entries := []json.RawMessage{[]byte(`1`), []byte(`2`), []byte(`3`), []byte(`4`)}
	writes := []Write{{Accepted: true}, {Stage: "validate", Error: "enterprise"}, {Stage: "store", Error: "broken"}, {Stage: "store", Error: "other"}}
	var written []byte
	apply := func(data []byte) (any, error) {
		written = data
		return []map[string]any{{"Kind": "k", "Accepted": true}, {"Kind": "k", "Stage": "store", "Reasons": []string{"x: broken"}},
			{"Kind": "k", "Stage": "store", "Reasons": []string{"x: something else"}}}, nil
	}
	counts := map[string]int{}
	problems := r.Run(entries, writes, apply, counts)
	assert.JSONEq(t, `[1,3,4]`, string(written), "the write left out is not written")
	assert.Equal(t, map[string]int{"accepted": 1, "accepted: k": 1, "left out": 1, "refused at store": 1, "refused at store: k": 1}, counts)
	assert.Equal(t, []string{`write 3: Consul refuses (store: "other"), meshscope: {Kind:k Accepted:false Stage:store Reasons:[x: something else]}`}, problems)
	assert.Equal(t, []string{"Apply: no"}, r.Run(entries, writes, func([]byte) (any, error) { return nil, errors.New("no") }, counts))
}

func TestCanonical(t *testing.T) {
	type name struct{ Service, Namespace, Partition string }
	type noNames struct{ Query string }
	assert.Equal(t, name{"web", "default", "ap1"}, Canonical(name{Service: "web", Partition: "ap1"}))
	var asInterface any = name{Service: "web"}
	assert.Equal(t, any(name{"web", "default", "default"}), Canonical(asInterface), "a value held in an interface")
	assert.Equal(t, noNames{"q"}, Canonical(noNames{"q"}))
}

func TestErrLines(t *testing.T) {
	ErrLines(t, nil, nil)
	ErrLines(t, errors.Join(errors.New("a"), errors.New("b")), []string{"a", "b"})
	ErrLinesAnyOrder(t, errors.Join(errors.New("a"), errors.New("b")), []string{"b", "a"})
	DecodeCase(t, `"ok"`, strictValue{"ok"}, nil)
	DecodeCase(t, `"bad"`, strictValue{}, []string{"b", "a"})
}

// strictValue is a value whose decoder refuses "bad" with two problems.
type strictValue struct{ s string }

func (v *strictValue) UnmarshalJSON(b []byte) error {
	if string(b) == `"bad"` {
		return errors.Join(errors.New("a"), errors.New("b"))
	}
	v.s = string(b[1 : len(b)-1])
	return nil
}
