//go:build amd64 && !purego

package sni

import (
	"math/bits"

	"github.com/meshscope/meshscope/internal/names"
)

// split is splitWords for names shorter than 32 bytes or without AVX2; otherwise
// classify32 checks every byte and label edge and marks the dots, and only the dots are
// visited, to check the lengths of the labels and record those before the trust domain.
func split(dots *[7]int, name string, end int) (n int, ok bool) {
	if len(name) < 32 || !hasAVX2 {
		return splitWords(dots, name, end)
	}
	var marks [4]uint64
	if !classify32(name, &marks) {
		return 0, false
	}
	// Every byte and label edge is checked: what remains is the length of each label.
	start := 0
	for k := range (len(name) + 63) / 64 {
		for d := marks[k]; d != 0; d &= d - 1 {
			at := 64*k + bits.TrailingZeros64(d)
			if at-start > names.MaxLabel {
				return 0, false
			}
			if n = record(dots, n, at, end); n < 0 {
				return 0, false
			}
			start = at + 1
		}
	}
	return n, len(name)-start <= names.MaxLabel
}

// hasAVX2 reports whether the processor and the operating system support AVX2. It is set
// once, when the package is initialized, and only read after that.
var hasAVX2 = detectAVX2()

// detectAVX2 asks the processor (CPUID) whether it has AVX and AVX2 and whether the operating
// system saves the YMM registers (XGETBV).
func detectAVX2() bool {
	const (
		osxsave = 1 << 27 // CPUID.1:ECX: the OS saves extended state; XGETBV works
		avx     = 1 << 28 // CPUID.1:ECX
		avx2    = 1 << 5  // CPUID.(7,0):EBX
		xmmYmm  = 0b110   // XCR0: the OS saves the XMM and YMM registers
	)
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	if ecx1&(osxsave|avx) != osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&xmmYmm != xmmYmm {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&avx2 != 0
}

// classify32 reports whether s, 32 to 256 bytes long, is made of labels of lowercase
// letters, digits and '-' separated by single dots, none empty or starting or ending with
// '-', and sets bit i%64 of dots[i/64], which must be zero, for each dot s[i]. It does not
// check the length of a label. It needs AVX2.
//
//go:noescape
func classify32(s string, dots *[4]uint64) bool

// cpuid runs the CPUID instruction for leaf eaxArg and subleaf ecxArg.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// xgetbv reads the extended control register XCR0.
func xgetbv() (eax, edx uint32)
