package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFile(t *testing.T) {
	sample := fstest.MapFS{"sample/a.yaml": {Data: []byte("embedded")}}
	b, name, err := ReadFile(sample, "", "a.yaml")
	require.NoError(t, err)
	assert.Equal(t, "embedded", string(b))
	assert.Equal(t, "sample/a.yaml", name)

	p := filepath.Join(t.TempDir(), "mine.yaml")
	require.NoError(t, os.WriteFile(p, []byte("mine"), 0o600))
	b, name, err = ReadFile(sample, p, "a.yaml")
	require.NoError(t, err)
	assert.Equal(t, "mine", string(b))
	assert.Equal(t, p, name)

	_, _, err = ReadFile(sample, filepath.Join(t.TempDir(), "missing"), "a.yaml")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestEmit(t *testing.T) {
	var out, errOut strings.Builder
	assert.True(t, CheckFormat("prog", "json", &errOut))
	assert.False(t, CheckFormat("prog", "xml", &errOut))
	assert.Equal(t, "prog: -o must be table or json, got \"xml\"\n", errOut.String())

	code := Emit("prog", &out, &errOut, "json", map[string]int{"a": 1}, nil)
	assert.Equal(t, OK, code)
	assert.Equal(t, "{\n  \"a\": 1\n}\n", out.String())

	out.Reset()
	errOut.Reset()
	code = Emit("prog", &out, &errOut, "table", nil, func(w io.Writer) error { _, err := io.WriteString(w, "T\n"); return err })
	assert.Equal(t, OK, code)
	assert.Equal(t, "T\n", out.String())

	code = Emit("prog", &out, &errOut, "table", nil, func(io.Writer) error { return errors.New("broken pipe") })
	assert.Equal(t, Error, code)
	assert.Equal(t, "prog: broken pipe\n", errOut.String())
}
