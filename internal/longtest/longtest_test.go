package longtest

import "testing"

func TestN(t *testing.T) {
	t.Setenv("MESHSCOPE_LONG", "")
	if N(1, 10) != 1 || Long() {
		t.Fatal("short by default")
	}
	t.Setenv("MESHSCOPE_LONG", "1")
	if N(1, 10) != 10 || !Long() {
		t.Fatal("long with MESHSCOPE_LONG=1")
	}
	t.Setenv("MESHSCOPE_LONG", "yes")
	if N(1, 10) != 1 {
		t.Fatal("only 1 asks for the long runs")
	}
}
