//go:build amd64 && !purego

#include "textflag.h"

// The bytes that CLASSIFY compares with; cut32 copies each to all 32 bytes of a register.
DATA consts<>+0(SB)/1, $0x2e // '.'
DATA consts<>+1(SB)/1, $0x2d // '-'
DATA consts<>+2(SB)/1, $0x2f // '/', below the digits
DATA consts<>+3(SB)/1, $0x3a // ':', above them
DATA consts<>+4(SB)/1, $0x60 // '`', below the letters
DATA consts<>+5(SB)/1, $0x7b // '{', above them
GLOBL consts<>(SB), RODATA|NOPTR, $6

// CLASSIFY classifies the 32 bytes in Y0: AX gets a bit for each byte that is a letter, a
// digit, '.' or '-', BX one for each '.', DX one for each '-'. Y8..Y13 hold the constants.
// Bytes of 0x80 and above are negative to the signed compares, so they fall in no range.
#define CLASSIFY \
	VPCMPEQB  Y8, Y0, Y1  \ // '.'
	VPMOVMSKB Y1, BX      \
	VPCMPEQB  Y9, Y0, Y2  \ // '-'
	VPMOVMSKB Y2, DX      \
	VPOR      Y2, Y1, Y1  \
	VPCMPGTB  Y10, Y0, Y2 \ // x > '/'
	VPCMPGTB  Y0, Y11, Y3 \ // ':' > x
	VPAND     Y3, Y2, Y2  \
	VPOR      Y2, Y1, Y1  \
	VPCMPGTB  Y12, Y0, Y2 \ // x > '`'
	VPCMPGTB  Y0, Y13, Y3 \ // '{' > x
	VPAND     Y3, Y2, Y2  \
	VPOR      Y2, Y1, Y1  \
	VPMOVMSKB Y1, AX

// EDGES refuses the word of marks gathered in R11 (dots) and R13 (dashes) when a dot or
// dash comes right after a dot (an empty label, or one that starts with '-') or a dot right
// after a dash (a label that ends with '-'). R14 and R10 carry the last dot and dash of a
// word into the next one, at bit 0. AX and CX are scratch.
#define EDGES \
	MOVQ  R11, AX  \ // the bytes after a dot
	SHLQ  $1, AX   \
	ORQ   R14, AX  \
	MOVQ  R11, CX  \
	ORQ   R13, CX  \
	ANDQ  AX, CX   \
	MOVQ  R13, AX  \ // the bytes after a dash
	SHLQ  $1, AX   \
	ORQ   R10, AX  \
	ANDQ  R11, AX  \
	ORQ   CX, AX   \
	JNZ   refuse   \
	MOVQ  R11, R14 \
	SHRQ  $63, R14 \
	MOVQ  R13, R10 \
	SHRQ  $63, R10

// func cut32(s string, end int, dots *[7]int) (n int, ok bool)
//
// cut32 is split for 32 <= len(s) <= 256 on a processor with AVX2. It classifies s 32 bytes
// at a time, gathers the marks of each 64 bytes in R11 (dots) and R13 (dashes), checks the
// label edges there (EDGES), then visits the dots one by one: each ends a label, which must
// be at most 63 bytes long, and those at or before end are recorded.
//
// Registers: SI s, R12 len(s), R8 the offset of the next chunk, BX the offset of the word
// being visited, R9 the start of the current label, DI where the next dot is recorded; the
// result n holds the end of dots until the end, where it gets the count.
TEXT ·cut32(SB), NOSPLIT, $0-41
	MOVQ    s_base+0(FP), SI
	MOVQ    s_len+8(FP), R12
	MOVQ    dots+24(FP), DI
	LEAQ    56(DI), AX
	MOVQ    AX, n+32(FP)      // the end of dots, for now
	VPBROADCASTB consts<>+0(SB), Y8
	VPBROADCASTB consts<>+1(SB), Y9
	VPBROADCASTB consts<>+2(SB), Y10
	VPBROADCASTB consts<>+3(SB), Y11
	VPBROADCASTB consts<>+4(SB), Y12
	VPBROADCASTB consts<>+5(SB), Y13
	XORL    R9, R9            // the first label starts at 0
	XORL    R11, R11
	XORL    R13, R13
	XORQ    R8, R8
	MOVQ    $1, R14           // the start counts as a dot
	XORL    R10, R10

chunk:
	LEAQ    32(R8), AX
	CMPQ    AX, R12
	JA      tail
	VMOVDQU (SI)(R8*1), Y0
	CLASSIFY
	NOTL    AX
	TESTL   AX, AX
	JNZ     refuse            // a byte in no class
	MOVQ    R8, CX            // byte i is bit i%64 of its word
	SHLQ    CL, BX
	ORQ     BX, R11
	SHLQ    CL, DX
	ORQ     DX, R13
	ADDQ    $32, R8
	TESTQ   $63, R8
	JNZ     chunk
	LEAQ    -64(R8), BX       // a word is whole
	JMP     word

tail:
	// The last len%32 bytes: read the last 32 bytes of s and shift out those already read.
	MOVQ    R12, CX
	ANDQ    $31, CX
	JZ      partial
	VMOVDQU -32(SI)(R12*1), Y0
	CLASSIFY
	NEGQ    CX
	ADDQ    $32, CX           // the bytes read before: 32 - len%32
	NOTL    AX
	SHRL    CX, AX
	JNZ     refuse
	SHRL    CX, BX
	SHRL    CX, DX
	MOVQ    R8, CX
	SHLQ    CL, BX
	ORQ     BX, R11
	SHLQ    CL, DX
	ORQ     DX, R13

partial:
	MOVQ    R8, BX            // the last word, whole or not (zero when s ended with a whole one)
	ANDQ    $~63, BX
	MOVQ    $-1, R8           // no chunk follows

word:
	EDGES

dot:
	TESTQ   R11, R11
	JZ      visited
	BSFQ    R11, AX
	ADDQ    BX, AX            // the offset of the dot
	MOVQ    AX, CX
	SUBQ    R9, CX
	CMPQ    CX, $63
	JGT     refuse            // the label it ends is too long
	LEAQ    1(AX), R9
	CMPQ    AX, end+16(FP)
	JHI     next
	CMPQ    DI, n+32(FP)
	JAE     refuse            // one label more than any kind of name has
	MOVQ    AX, (DI)
	ADDQ    $8, DI

next:
	LEAQ    -1(R11), CX
	ANDQ    CX, R11
	JMP     dot

visited:
	XORL    R13, R13
	TESTQ   R8, R8
	JNS     chunk

	// The last label is not empty, does not end with '-' and is at most 63 bytes long.
	MOVBLZX -1(SI)(R12*1), AX
	CMPL    AX, $0x2e
	JEQ     refuse
	CMPL    AX, $0x2d
	JEQ     refuse
	MOVQ    R12, AX
	SUBQ    R9, AX
	CMPQ    AX, $63
	JGT     refuse
	SUBQ    dots+24(FP), DI
	SHRQ    $3, DI
	MOVQ    DI, n+32(FP)
	MOVB    $1, ok+40(FP)
	VZEROUPPER
	RET

refuse:
	MOVQ    $0, n+32(FP)
	MOVB    $0, ok+40(FP)
	VZEROUPPER
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
