package testkit_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/meshscope/meshscope/internal/testkit"
)

// TestReadsBack: a value whose fields an API type keeps reads back; one whose field the API
// type drops, or writes back otherwise, fails.
func TestReadsBack(t *testing.T) {
	type ours struct {
		Name string
		Port int `json:",omitempty"`
	}
	var kept struct {
		Name string
		Port int `json:",omitempty"`
	}
	b := testkit.ReadsBack(t, ours{Name: "web", Port: 80}, &kept)
	assert.JSONEq(t, `{"Name":"web","Port":80}`, string(b))
	assert.Equal(t, 80, kept.Port)

	var dropped struct{ Name string }
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() { // a FailNow ends the goroutine that runs ReadsBack, as in a test
		defer close(done)
		testkit.ReadsBack(rec, ours{Name: "web", Port: 80}, &dropped)
	}()
	<-done
	assert.True(t, rec.failed, "an API type without the field Port does not write it back")
}

// recorder is a test that records its failures instead of failing the test running it.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true; runtime.Goexit() }
