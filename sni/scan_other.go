//go:build !amd64 || purego

package sni

// split is splitWords: the portable path is the only one here.
func split(dots *[7]int, name string, end int) (int, bool) { return splitWords(dots, name, end) }
