/* A stand-in wsl.exe for the tests under Wine (tests/adapters/test_wsl_wine.py).
 *
 * A real Windows console program, so that what the wizard's Windows code sends and reads goes
 * the way it goes on Windows: the argv list that subprocess joins into one command line
 * (list2cmdline) and CreateProcessW hands over, split here again by CommandLineToArgvW, as
 * wsl.exe splits it (microsoft/WSL, src/shared/inc/CommandLine.h: ArgumentParser); the
 * bytes written to a pipe in binary mode; the exit status as a DWORD (-1 is 4294967295).
 *
 * Each call appends one UTF-8 JSON line to calls.jsonl beside this program:
 *   {"argv": [arguments after the program], "WSL_UTF8": value or null, "command_line": "..."}
 *
 * Then:
 * - "--distribution NAME ... --exec ARGV...": reads all of standard input (binary) and writes
 *   one UTF-8 JSON line: {"argv": [ARGV...], "stdin_bytes": N, "stdin_fnv1a64": "16 hex digits"}
 *   (FNV-1a, 64 bits, over the bytes read), exit 0;
 * - anything else: looks up its arguments, joined by single spaces, in replies.tsv beside this
 *   program (UTF-8 lines "EXIT<TAB>FILE<TAB>ARGUMENTS") and writes FILE's bytes (a recorded
 *   output, UTF-16 as wsl.exe writes it) to standard output, exiting with EXIT; arguments with
 *   no line get "Invalid command line option: ARGUMENTS" in UTF-16 on standard error and exit -1
 *   (the text tests/fakes/wsl_exe.py writes, so both stand-ins give the same facts).
 *
 * Built by the test with MinGW-w64: x86_64-w64-mingw32-gcc -O2 -o wsl.exe wsl_exe_win.c -lshell32
 */
#define __USE_MINGW_ANSI_STDIO 1 /* %llu and %llx as C99 has them */
#include <windows.h>
#include <shellapi.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

static char *to_utf8(const wchar_t *text) {
    int size = WideCharToMultiByte(CP_UTF8, 0, text, -1, NULL, 0, NULL, NULL);
    char *utf8 = malloc(size > 0 ? size : 1);
    if (size <= 0 || !WideCharToMultiByte(CP_UTF8, 0, text, -1, utf8, size, NULL, NULL)) {
        utf8[0] = '\0';
    }
    return utf8;
}

static void json_string(FILE *out, const wchar_t *text) {
    char *utf8 = to_utf8(text);
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)utf8; *p; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
        } else if (*p < 0x20) {
            fprintf(out, "\\u%04x", *p);
        } else {
            fputc(*p, out);
        }
    }
    fputc('"', out);
    free(utf8);
}

static void json_list(FILE *out, wchar_t **items, int count) {
    fputc('[', out);
    for (int i = 0; i < count; i++) {
        if (i > 0) {
            fputs(", ", out);
        }
        json_string(out, items[i]);
    }
    fputc(']', out);
}

/* A file beside this program: FOLDER\name. */
static wchar_t *beside(const wchar_t *name) {
    static wchar_t path[32768];
    DWORD length = GetModuleFileNameW(NULL, path, 32768);
    wchar_t *cut = path + length;
    while (cut > path && cut[-1] != L'\\' && cut[-1] != L'/') {
        cut--;
    }
    wcscpy(cut, name);
    return path;
}

static void record(int argc, wchar_t **argv) {
    FILE *log = _wfopen(beside(L"calls.jsonl"), L"ab");
    if (log == NULL) {
        exit(70);
    }
    static wchar_t utf8_flag[256];
    DWORD flag = GetEnvironmentVariableW(L"WSL_UTF8", utf8_flag, 256);
    fputs("{\"argv\": ", log);
    json_list(log, argv + 1, argc - 1);
    fputs(", \"WSL_UTF8\": ", log);
    if (flag == 0 || flag >= 256) {
        fputs("null", log);
    } else {
        json_string(log, utf8_flag);
    }
    fputs(", \"command_line\": ", log);
    json_string(log, GetCommandLineW());
    fputs("}\n", log);
    fclose(log);
}

static int run_in_distribution(wchar_t **command, int count) {
    unsigned long long hash = 14695981039346656037ULL, total = 0;
    unsigned char block[65536];
    size_t got;
    _setmode(_fileno(stdin), _O_BINARY); /* else text mode ends at a 0x1A and eats each \r */
    while ((got = fread(block, 1, sizeof block, stdin)) > 0) {
        for (size_t i = 0; i < got; i++) {
            hash = (hash ^ block[i]) * 1099511628211ULL;
        }
        total += got;
    }
    printf("{\"argv\": ");
    json_list(stdout, command, count);
    printf(", \"stdin_bytes\": %llu, \"stdin_fnv1a64\": \"%016llx\"}\n", total, hash);
    return 0;
}

/* The arguments joined by single spaces (the key of replies.tsv). */
static wchar_t *joined(int argc, wchar_t **argv) {
    size_t size = 1;
    for (int i = 1; i < argc; i++) {
        size += wcslen(argv[i]) + 1;
    }
    wchar_t *text = calloc(size, sizeof(wchar_t));
    for (int i = 1; i < argc; i++) {
        if (i > 1) {
            wcscat(text, L" ");
        }
        wcscat(text, argv[i]);
    }
    return text;
}

/* The reply for `key` from replies.tsv: its file in `file`, its exit status; 0 when none. */
static int find_reply(const wchar_t *key, wchar_t *file, size_t file_size, int *code) {
    FILE *table = _wfopen(beside(L"replies.tsv"), L"rb");
    if (table == NULL) {
        return 0;
    }
    static char line[65536];
    static wchar_t wide[65536];
    int found = 0;
    while (!found && fgets(line, sizeof line, table) != NULL) {
        if (!MultiByteToWideChar(CP_UTF8, 0, line, -1, wide, 65536)) {
            continue;
        }
        wide[wcscspn(wide, L"\r\n")] = L'\0';
        wchar_t *first = wcschr(wide, L'\t');
        wchar_t *second = first == NULL ? NULL : wcschr(first + 1, L'\t');
        if (second == NULL || wcscmp(second + 1, key) != 0) {
            continue;
        }
        *second = L'\0';
        *code = (int)wcstol(wide, NULL, 10);
        wcsncpy(file, first + 1, file_size - 1);
        file[file_size - 1] = L'\0';
        found = 1;
    }
    fclose(table);
    return found;
}

int main(void) {
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    if (argv == NULL) {
        return 71;
    }
    record(argc, argv);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    if (argc >= 3 && wcscmp(argv[1], L"--distribution") == 0) {
        for (int i = 3; i < argc; i++) {
            if (wcscmp(argv[i], L"--exec") == 0) {
                return run_in_distribution(argv + i + 1, argc - i - 1);
            }
        }
    }
    wchar_t *key = joined(argc, argv);
    static wchar_t file[32768];
    int code = 0;
    if (!find_reply(key, file, 32768, &code)) {
        static const wchar_t prefix[] = L"Invalid command line option: ";
        fwrite(prefix, sizeof(wchar_t), wcslen(prefix), stderr);
        fwrite(key, sizeof(wchar_t), wcslen(key), stderr);
        fwrite(L"\r\n", sizeof(wchar_t), 2, stderr);
        return -1;
    }
    FILE *recorded = _wfopen(file, L"rb");
    if (recorded == NULL) {
        return 72;
    }
    static unsigned char block[65536];
    size_t got;
    while ((got = fread(block, 1, sizeof block, recorded)) > 0) {
        fwrite(block, 1, got, stdout);
    }
    fclose(recorded);
    fflush(stdout);
    return code;
}
