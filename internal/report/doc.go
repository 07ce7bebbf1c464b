// Package report holds the shapes every meshscope package reports in: a Finding (a lint or
// check result), the Code that classifies it, with the one Level every finding of the code
// has, and a Change (how one thing differs between two configurations). The public packages
// export Finding and Change under their own names (type aliases), so that one type serves a
// visibility lint, a scope check and a peering note alike, and a program prints or gates on
// all of them the same way.
//
// # Codes
//
// A code is declared once, by the package that reports it, as a package-level variable
// whose documentation opens with the code's name and level:
//
//	var (
//		// Shadowed (warning): an earlier policy matches every namespace this one matches,
//		// so this one never decides.
//		Shadowed = report.NewCode("Shadowed", report.Warning)
//	)
//
//	out = append(out, report.New("policies[2]", Shadowed, "policies[%d] matches every namespace it does", 0))
//
// New gives the finding its code's level, so a code's name, level and documentation are one
// declaration; a test of this package reads the module's source and holds every declaration
// to that (one declaration per name, its documented level its level). A code that two
// packages report is declared by the lower one and named through it by the other.
//
// Codes are comparable values: f.Code == visibility.Shadowed, a switch on f.Code and maps
// keyed by Code work as on any value. A code prints, and encodes in JSON, as its name; a
// finding encodes as {"path", "code", "level", "message"}:
//
//	WARNING Shadowed policies[2]: policies[0] matches every namespace it does
//	{"path":"policies[2]","code":"Shadowed","level":"warning","message":"policies[0] matches every namespace it does"}
//
// and a finding decoded from that JSON holds the code of that name and level, so it equals
// the finding reported.
package report
