package report_test

import (
	"encoding/json"
	"fmt"

	"github.com/meshscope/meshscope/internal/report"
)

// Shadowed is a code as a package declares one, its documentation opening with its level.
var (
	// Shadowed (warning): an earlier policy matches every namespace this one matches, so
	// this one never decides.
	Shadowed = report.NewCode("Shadowed", report.Warning)
)

func ExampleNew() {
	f := report.New("policies[2]", Shadowed, "policies[%d] matches every namespace it does", 0)
	fmt.Println(f)
	fmt.Println(f.Code, f.Level, f.Code == Shadowed)
	b, _ := json.Marshal(f)
	fmt.Println(string(b))

	var back report.Finding
	_ = json.Unmarshal(b, &back)
	fmt.Println(back == f, back.Code == Shadowed)
	// Output:
	// WARNING Shadowed policies[2]: policies[0] matches every namespace it does
	// Shadowed WARNING true
	// {"path":"policies[2]","code":"Shadowed","level":"warning","message":"policies[0] matches every namespace it does"}
	// true true
}

func ExampleAtLeast() {
	redundant := report.NewCode("Redundant", report.Note)
	fs := []report.Finding{
		report.New("policies[1]", redundant, "it gives the default visibility"),
		report.New("policies[2]", Shadowed, "policies[0] matches every namespace it does"),
	}
	for _, f := range report.AtLeast(fs, report.Warning) {
		fmt.Println(f)
	}
	// Output:
	// WARNING Shadowed policies[2]: policies[0] matches every namespace it does
}
