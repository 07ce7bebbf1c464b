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

func TestEvery(t *testing.T) {
	for step, want := range map[int]string{1: "every case", 2: "every 2nd case", 3: "every 3rd case", 4: "every 4th case", 12: "every 12th case", 23: "every 23rd case"} {
		if got := Every(step); got != want {
			t.Errorf("Every(%d) = %q, want %q", step, got, want)
		}
	}
}
