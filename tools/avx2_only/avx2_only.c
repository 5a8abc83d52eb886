/*
 * avx2_only.so - run a program as if the processor had AVX2 but no AVX-512 and no VNNI.
 *
 * Loaded with LD_PRELOAD, it turns on Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID) in
 * every process it is loaded into, so each `cpuid` instruction traps. The SIGSEGV handler runs the
 * real `cpuid`, clears the AVX-512, VNNI, AMX and related feature bits, and resumes the program
 * after the instruction. Libraries that pick their kernels from cpuid (ONNX Runtime's MLAS,
 * oneDNN in PyTorch, NumPy's dispatch) then take their AVX2 code paths and run them natively, at
 * the machine's own speed, unlike an emulator.
 *
 * The program's own SIGSEGV handlers keep working: sigaction() and signal() for SIGSEGV are
 * interposed, so the program's handler is recorded and called for every fault that is not a
 * trapped cpuid, and the program sees the handler it installed when it asks.
 *
 * Without CPUID faulting (e.g. AMD processors, or a hypervisor that does not offer it),
 * `tools/avx2_only/run` patches instead: avx2_audit.so (LD_AUDIT) replaces the `cpuid`
 * instructions of the libraries that choose kernels from it (ONNX Runtime, NumPy; found with
 * objdump) by `int3; nop` as they are loaded, and with AVX2_ONLY_PATCHED set this library answers
 * the SIGTRAP exactly as it answers a trapped cpuid. (PyTorch, oneDNN, MKL and FAISS are told by
 * their own environment variables.) SIGTRAP handlers of the program are kept the same way.
 *
 * Limits: code that ran before this library's constructor (the dynamic loader and glibc's own
 * start-up) saw the real flags; /proc/cpuinfo still lists the real flags. Where the kernel or CPU
 * has no CPUID faulting and the run is not patched, the process runs unchanged and the
 * constructor says so on stderr (with AVX2_ONLY_CHECK set it exits 3 instead: `tools/avx2_only/run`
 * checks this before it chooses a mode).
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define BIT(n) (1u << (n))

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static sigaction_fn real_sigaction;
static struct sigaction program_handler; /* what the program asked for, SIG_DFL until it asks */
static int armed;
static int trapped_sig = SIGSEGV; /* SIGSEGV (CPUID faulting) or SIGTRAP (patched cpuid) */

static int cpuid_faulting(int on) { return (int)syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1); }

static void run_cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

/* Clear what an AVX2-only x86-64 processor (Haswell to Comet Lake, Zen 1-3) does not have. */
static void mask_features(unsigned leaf, unsigned sub, unsigned r[4]) {
    if (leaf == 7 && sub == 0) {
        /* EBX: AVX512F, DQ, IFMA, PF, ER, CD, BW, VL */
        r[1] &= ~(BIT(16) | BIT(17) | BIT(21) | BIT(26) | BIT(27) | BIT(28) | BIT(30) | BIT(31));
        /* ECX: VBMI, VBMI2, GFNI, VAES, VPCLMULQDQ, AVX512_VNNI, BITALG, VPOPCNTDQ */
        r[2] &= ~(BIT(1) | BIT(6) | BIT(8) | BIT(9) | BIT(10) | BIT(11) | BIT(12) | BIT(14));
        /* EDX: 4VNNIW, 4FMAPS, VP2INTERSECT, AMX_BF16, AVX512_FP16, AMX_TILE, AMX_INT8 */
        r[3] &= ~(BIT(2) | BIT(3) | BIT(8) | BIT(22) | BIT(23) | BIT(24) | BIT(25));
    } else if (leaf == 7 && sub == 1) {
        /* EAX: AVX_VNNI, AVX512_BF16, AMX_FP16, AVX_IFMA */
        r[0] &= ~(BIT(4) | BIT(5) | BIT(21) | BIT(23));
        /* EDX: AVX_VNNI_INT8, AVX_NE_CONVERT, AMX_COMPLEX, AVX_VNNI_INT16, AVX10 */
        r[3] &= ~(BIT(4) | BIT(5) | BIT(8) | BIT(10) | BIT(19));
    } else if (leaf == 0xd && sub == 0) {
        /* EAX: the opmask / ZMM / AMX state components the OS may enable */
        r[0] &= ~(BIT(5) | BIT(6) | BIT(7) | BIT(17) | BIT(18));
    } else if (leaf == 0x24) {
        r[0] = r[1] = r[2] = r[3] = 0; /* AVX10 converged vector ISA leaf */
    }
}

/* Run the real cpuid for the leaf in the trapped context, mask it, write the answer into the
 * context's registers and resume `skip` bytes further. */
static void answer_cpuid(greg_t *regs, int skip) {
    unsigned r[4];
    unsigned leaf = (unsigned)regs[REG_RAX], sub = (unsigned)regs[REG_RCX];
    run_cpuid(leaf, sub, r);
    mask_features(leaf, sub, r);
    regs[REG_RAX] = r[0];
    regs[REG_RBX] = r[1];
    regs[REG_RCX] = r[2];
    regs[REG_RDX] = r[3];
    regs[REG_RIP] += skip;
}

static void call_program_handler(int sig, siginfo_t *info, void *context) {
    struct sigaction h = program_handler;
    if (h.sa_flags & SA_SIGINFO) {
        h.sa_sigaction(sig, info, context);
    } else if (h.sa_handler == SIG_IGN) {
        return;
    } else if (h.sa_handler == SIG_DFL) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        real_sigaction(sig, &dfl, NULL);
        if (info->si_code <= 0) raise(sig); /* sent by a program: send it again */
        /* a fault: returning re-runs the instruction, which now ends the process */
    } else {
        h.sa_handler(sig);
    }
}

static void on_segv(int sig, siginfo_t *info, void *context) {
    ucontext_t *uc = context;
    greg_t *regs = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)regs[REG_RIP];
    if (info->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0xa2) {
        cpuid_faulting(0);
        answer_cpuid(regs, 2);
        cpuid_faulting(1);
        return;
    }
    call_program_handler(sig, info, context);
}

/* A patched cpuid (int3; nop): the int3 has run, RIP points at the nop. */
static void on_trap(int sig, siginfo_t *info, void *context) {
    ucontext_t *uc = context;
    greg_t *regs = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)regs[REG_RIP];
    if (info->si_code == SI_KERNEL && ip[-1] == 0xcc && ip[0] == 0x90) {
        answer_cpuid(regs, 1);
        return;
    }
    call_program_handler(sig, info, context);
}

static void resolve(void) {
    if (!real_sigaction) real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    resolve();
    if (sig != trapped_sig || !armed) return real_sigaction(sig, act, old);
    if (old) *old = program_handler;
    if (act) program_handler = *act;
    return 0;
}

sighandler_t signal(int sig, sighandler_t handler) {
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;
    sigemptyset(&act.sa_mask);
    if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
    return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction : old.sa_handler;
}

__attribute__((constructor)) static void arm(void) {
    resolve();
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = on_segv;
    act.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&act.sa_mask);
    if (real_sigaction(SIGSEGV, &act, &program_handler) != 0) return;
    if (cpuid_faulting(1) != 0) {
        real_sigaction(SIGSEGV, &program_handler, NULL);
        if (getenv("AVX2_ONLY_PATCHED") && !getenv("AVX2_ONLY_CHECK")) {
            act.sa_sigaction = on_trap;
            if (real_sigaction(SIGTRAP, &act, &program_handler) != 0) return;
            trapped_sig = SIGTRAP;
            armed = 1;
            return;
        }
        static const char msg[] = "avx2_only: this kernel or CPU has no CPUID faulting; flags unchanged\n";
        (void)!write(2, msg, sizeof msg - 1);
        if (getenv("AVX2_ONLY_CHECK")) _exit(3);
        return;
    }
    armed = 1;
}
