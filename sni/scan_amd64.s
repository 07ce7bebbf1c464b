//go:build amd64 && !purego

#include "textflag.h"

// The bytes that CLASSIFY compares with, each 32 times.
DATA consts<>+0x00(SB)/8, $0x2e2e2e2e2e2e2e2e // '.'
DATA consts<>+0x08(SB)/8, $0x2e2e2e2e2e2e2e2e
DATA consts<>+0x10(SB)/8, $0x2e2e2e2e2e2e2e2e
DATA consts<>+0x18(SB)/8, $0x2e2e2e2e2e2e2e2e
DATA consts<>+0x20(SB)/8, $0x2d2d2d2d2d2d2d2d // '-'
DATA consts<>+0x28(SB)/8, $0x2d2d2d2d2d2d2d2d
DATA consts<>+0x30(SB)/8, $0x2d2d2d2d2d2d2d2d
DATA consts<>+0x38(SB)/8, $0x2d2d2d2d2d2d2d2d
DATA consts<>+0x40(SB)/8, $0x2f2f2f2f2f2f2f2f // '/', below the digits
DATA consts<>+0x48(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA consts<>+0x50(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA consts<>+0x58(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA consts<>+0x60(SB)/8, $0x3a3a3a3a3a3a3a3a // ':', above them
DATA consts<>+0x68(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA consts<>+0x70(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA consts<>+0x78(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA consts<>+0x80(SB)/8, $0x6060606060606060 // '`', below the letters
DATA consts<>+0x88(SB)/8, $0x6060606060606060
DATA consts<>+0x90(SB)/8, $0x6060606060606060
DATA consts<>+0x98(SB)/8, $0x6060606060606060
DATA consts<>+0xa0(SB)/8, $0x7b7b7b7b7b7b7b7b // '{', above them
DATA consts<>+0xa8(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA consts<>+0xb0(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA consts<>+0xb8(SB)/8, $0x7b7b7b7b7b7b7b7b
GLOBL consts<>(SB), RODATA|NOPTR, $0xc0

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

// EDGES adds to R9 the label edges that are wrong in the word of marks gathered in R11
// (dots) and R13 (dashes): a dot or dash right after a dot (an empty label, or one that
// starts with '-') and a dot right after a dash (a label that ends with '-'). R14 and R10
// carry the last dot and dash of a word into the next one, at bit 0.
#define EDGES \
	MOVQ R11, AX  \ // the bytes after a dot
	SHLQ $1, AX   \
	ORQ  R14, AX  \
	MOVQ R11, BX  \
	ORQ  R13, BX  \
	ANDQ AX, BX   \
	ORQ  BX, R9   \
	MOVQ R13, AX  \ // the bytes after a dash
	SHLQ $1, AX   \
	ORQ  R10, AX  \
	ANDQ R11, AX  \
	ORQ  AX, R9   \
	MOVQ R11, R14 \
	SHRQ $63, R14 \
	MOVQ R13, R10 \
	SHRQ $63, R10

// func classify32(s string, dots *[4]uint64) bool
//
// The marks are gathered in registers and stored a whole word at a time, so that the Go
// code that reads them back loads what was stored (a word loaded from narrower stores
// would stall).
TEXT ·classify32(SB), NOSPLIT, $0-25
	MOVQ    s_base+0(FP), SI
	MOVQ    s_len+8(FP), R12
	MOVQ    dots+16(FP), DI
	VMOVDQU consts<>+0x00(SB), Y8
	VMOVDQU consts<>+0x20(SB), Y9
	VMOVDQU consts<>+0x40(SB), Y10
	VMOVDQU consts<>+0x60(SB), Y11
	VMOVDQU consts<>+0x80(SB), Y12
	VMOVDQU consts<>+0xa0(SB), Y13
	XORL    R9, R9    // the bytes in no class so far
	XORL    R11, R11  // the dots of the word being gathered
	XORL    R13, R13  // its dashes
	XORQ    R8, R8    // the offset of the chunk
	MOVQ    $1, R14   // the last dot before the word, at bit 0: the start counts as one
	XORL    R10, R10  // the last dash before the word, at bit 0

chunk:
	LEAQ    32(R8), AX
	CMPQ    AX, R12
	JA      tail
	VMOVDQU (SI)(R8*1), Y0
	CLASSIFY
	NOTL    AX
	ORQ     AX, R9
	MOVQ    R8, CX    // byte i is bit i%64 of its word
	SHLQ    CL, BX
	ORQ     BX, R11
	SHLQ    CL, DX
	ORQ     DX, R13
	ADDQ    $32, R8
	TESTQ   $63, R8
	JNZ     chunk
	EDGES
	MOVQ    R8, CX    // a word is whole: store its dots at R8/64 - 1
	SHRQ    $3, CX
	MOVQ    R11, -8(DI)(CX*1)
	XORL    R11, R11
	XORL    R13, R13
	JMP     chunk

tail:
	// The last len%32 bytes: read the last 32 bytes of s and shift out those already read.
	MOVQ    R12, CX
	ANDQ    $31, CX
	JZ      flush
	VMOVDQU -32(SI)(R12*1), Y0
	CLASSIFY
	NEGQ    CX
	ADDQ    $32, CX   // the bytes read before: 32 - len%32
	NOTL    AX
	SHRL    CX, AX
	SHRL    CX, BX
	SHRL    CX, DX
	ORQ     AX, R9
	MOVQ    R8, CX
	SHLQ    CL, BX
	ORQ     BX, R11
	SHLQ    CL, DX
	ORQ     DX, R13

flush:
	// Check and store the word being gathered. When s ended with a whole word, R8 is a
	// multiple of 64 and this word is zero: the check passes, and the store is skipped
	// at 256, past the marks.
	EDGES
	CMPQ    R8, $256
	JAE     last
	MOVQ    R8, CX
	SHRQ    $6, CX
	MOVQ    R11, (DI)(CX*8)

last:
	// The last label is not empty and does not end with '-'.
	MOVBLZX -1(SI)(R12*1), AX
	CMPL    AX, $0x2e
	JEQ     refuse
	CMPL    AX, $0x2d
	JEQ     refuse
	VZEROUPPER
	TESTQ   R9, R9
	SETEQ   ret+24(FP)
	RET

refuse:
	VZEROUPPER
	MOVB    $0, ret+24(FP)
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
