package kube

import "strings"

// validLabels reports whether every key and value of ls is one Kubernetes accepts
// (metavalidation.ValidateLabels finds no problem), in one pass without allocating:
// apimachinery splits each key to check it, so LabelProblems asks it only for labels this
// refuses, for its words. Held to apimachinery by TestValidLabelsMatchesApimachinery.
func validLabels(ls map[string]string) bool {
	for k, v := range ls {
		if !qualifiedName(k) || len(v) > 63 || v != "" && !nameChars(v) {
			return false
		}
	}
	return true
}

// qualifiedName reports whether k is a label key: a name of at most 63 characters, after an
// optional prefix and "/" that is a lower-case DNS subdomain of at most 253.
func qualifiedName(k string) bool {
	prefix, name, slashed := strings.Cut(k, "/")
	if !slashed {
		name = k
	} else if !subdomain(prefix) {
		return false
	}
	return len(name) <= 63 && name != "" && nameChars(name)
}

// nameChars reports whether s, not empty, is letters, digits, '-', '_' and '.', starting and
// ending with a letter or a digit.
func nameChars(s string) bool {
	if !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// subdomain reports whether s is a lower-case DNS subdomain as apimachinery reads one: at
// most 253 characters of dot-separated labels of a-z, 0-9 and '-', each starting and ending
// with a letter or a digit (apimachinery does not limit a label's length here).
func subdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func alnum(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }
