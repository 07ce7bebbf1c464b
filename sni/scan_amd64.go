//go:build amd64 && !purego

package sni

// split is cut32 for names of 32 bytes or more on a processor with AVX2, and splitWords
// otherwise.
func split(dots *[7]int, name string, end int) (n int, ok bool) {
	if len(name) < 32 || !hasAVX2 {
		return splitWords(dots, name, end)
	}
	return cut32(name, end, dots)
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

// cut32 is split for names of 32 to 256 bytes, in scan_amd64.s. It needs AVX2.
//
//go:noescape
func cut32(s string, end int, dots *[7]int) (n int, ok bool)

// cpuid runs the CPUID instruction for leaf eaxArg and subleaf ecxArg.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// xgetbv reads the extended control register XCR0.
func xgetbv() (eax, edx uint32)
