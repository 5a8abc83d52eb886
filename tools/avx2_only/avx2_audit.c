/*
 * avx2_audit.so - the patching half of tools/avx2_only for machines without CPUID faulting.
 *
 * Loaded with LD_AUDIT, the dynamic loader calls la_objopen() for every shared object it maps,
 * before the object is relocated and before its constructors run. When $AVX2_ONLY_SITES holds a
 * list of the object's `cpuid` instructions (file <dev>_<inode>_<size>_<mtime>.txt: hexadecimal
 * addresses, one a line, found by `tools/avx2_only/run` with objdump), each of those 2-byte
 * instructions (0F A2) is replaced in memory by `int3; nop` (CC 90). avx2_only.so (LD_PRELOAD)
 * catches the SIGTRAP, runs the real cpuid with the AVX-512/VNNI/AMX bits cleared and resumes
 * after the nop. Only the copy in this process's memory changes (private mapping); the file on
 * disk is untouched. An address whose bytes are not 0F A2 is left alone.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned int la_version(unsigned int version) {
    (void)version;
    return LAV_CURRENT;
}

static void patch(uintptr_t base, unsigned long addr, long page) {
    unsigned char *p = (unsigned char *)(base + addr);
    if (p[0] != 0x0f || p[1] != 0xa2) return;
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1);
    size_t len = (size_t)(((uintptr_t)p + 2 - start + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1));
    if (mprotect((void *)start, len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return;
    p[0] = 0xcc; /* int3 */
    p[1] = 0x90; /* nop */
    mprotect((void *)start, len, PROT_READ | PROT_EXEC);
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie) {
    (void)lmid;
    (void)cookie;
    const char *sites = getenv("AVX2_ONLY_SITES");
    struct stat st;
    if (!sites || !map->l_name || !map->l_name[0] || stat(map->l_name, &st) != 0) return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%lu_%lu_%lld_%lld.txt", sites, (unsigned long)st.st_dev,
             (unsigned long)st.st_ino, (long long)st.st_size, (long long)st.st_mtime);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long page = sysconf(_SC_PAGESIZE);
    unsigned long addr;
    while (fscanf(f, "%lx", &addr) == 1) patch((uintptr_t)map->l_addr, addr, page);
    fclose(f);
    return 0;
}
