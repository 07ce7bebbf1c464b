package testkit

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Write is Consul's server's answer to one write of a config entry: accepted, or refused at
// a stage ("decode", "validate", "store", "panic") in its words.
type Write struct {
	Accepted     bool
	Stage, Error string
}

// outcome is what a replay reads of one of meshscope's outcomes (store.WriteOutcome, read
// through its JSON).
type outcome struct {
	Kind     string
	Accepted bool
	Stage    string
	Reasons  []string
}

// Replay is how a test replays the writes of a recorded case through a Config's Apply and
// judges meshscope's answer to each against Consul's.
type Replay struct {
	// Leave returns the class of a write Consul refused for what meshscope accepts on
	// purpose, or "" for a write to replay. A write left out is counted and not written, so
	// that what follows is judged on what Consul stored.
	Leave func(w Write) string
	// Carries reports whether reason, one of the reasons of meshscope's refusal, carries
	// Consul's words for the refusal w.
	Carries func(w Write, reason string) bool
	// Agree is the class of a write meshscope answers as Consul did, by Consul's stage (""
	// for an accepted write).
	Agree map[string]string
}

// Run writes the entries Leave keeps, in order, with one call of apply (a Config's Apply,
// whose outcomes Run reads through their JSON), and compares each outcome with Consul's
// answer: acceptance, the stage, and Consul's words among the reasons. It counts the class of
// each write, alone and by kind, and returns what disagrees.
func (r Replay) Run(entries []json.RawMessage, writes []Write, apply func(data []byte) (any, error), counts map[string]int) []string {
	var kept []json.RawMessage
	var want []int // index into writes of each kept entry
	for i, w := range writes {
		if class := r.Leave(w); class != "" {
			counts[class]++
			continue
		}
		kept = append(kept, entries[i])
		want = append(want, i)
	}
	if len(kept) == 0 {
		return nil
	}
	outs, err := applied(kept, apply)
	if err != nil {
		return []string{fmt.Sprintf("Apply: %v", err)}
	}
	var problems []string
	for k, o := range outs {
		w := writes[want[k]]
		switch {
		case w.Accepted && o.Accepted:
		case w.Accepted:
			problems = append(problems, fmt.Sprintf("write %d: Consul accepts, meshscope: %+v", want[k], o))
			continue
		case o.Accepted:
			problems = append(problems, fmt.Sprintf("write %d: Consul refuses (%s: %s), meshscope accepts", want[k], w.Stage, w.Error))
			continue
		case o.Stage != w.Stage || !slices.ContainsFunc(o.Reasons, func(reason string) bool { return r.Carries(w, reason) }):
			problems = append(problems, fmt.Sprintf("write %d: Consul refuses (%s: %q), meshscope: %+v", want[k], w.Stage, w.Error, o))
			continue
		}
		class := r.Agree[w.Stage]
		counts[class]++
		counts[class+": "+o.Kind]++
	}
	return problems
}

// applied writes entries with apply and reads its outcomes.
func applied(entries []json.RawMessage, apply func(data []byte) (any, error)) ([]outcome, error) {
	data, err := json.Marshal(entries)
	if err != nil {
		return nil, err
	}
	res, err := apply(data)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var outs []outcome
	return outs, json.Unmarshal(out, &outs)
}
