extension CommandLineParser {
    /// The `--help` text: every option with its default.
    public static let helpText = """
        Usage: analyze [options] <path>...

        Summarise Adapty SDK event exports (gzipped or plain NDJSON) into CSV
        reports: installs per day (by device, customer user and profile ID),
        profile switches, quiz answer distributions, a quality report and a list
        of rejected lines.

        A <path> is a file (gzip is detected by its content), a directory (its
        *.ndjson, *.ndjson.gz, *.jsonl and *.jsonl.gz files, in name order; not
        dot-files or subdirectories), or - for standard input. Other compressed
        formats and archives (zstd, xz, bzip2, lz4, zip, 7z, tar) are not
        unpacked: such a file named as a path is read as text (its lines are
        rejected, a tar's headers around its files' lines; a warning, exit 0),
        and a directory skips them. Unpack them first.

        Options:
          --out DIR            where the CSVs go (default: ./analyze-out;
                               created if missing)
          --timezone TZ        reporting time zone: an IANA name such as
                               Asia/Tokyo (its offsets from the host's
                               /usr/share/zoneinfo or $TZDIR, else built in),
                               or +HH:MM / -HH:MM (default: UTC)
          --threads N          worker threads (default and at most: the cores
                               this process may use)
          --max-reject-rate R  fail with exit 3 when rejected/lines exceeds R
                               (default: 1.0 = never)
          --max-reject-rows N  rows kept in rejects.csv (default: 10000)
          --max-line-bytes N   longer lines are rejected as line_too_long
                               (default: 1048576)
          --quiet              no progress or summary on standard error
                               (warnings and errors are still shown)
          -h, --help           show this help
          --version            show the version, the gzip inflater and the
                               time zone data in use

        A value follows its option as --opt VALUE or --opt=VALUE (only the
        second takes a value that starts with --); options may follow paths;
        a repeated option keeps its last value; -- ends the options (write a
        file named -x.gz as ./-x.gz or after --).

        Outputs (in --out): installs.csv, profile_switches.csv, quiz_answers.csv,
        quality.csv, rejects.csv. They are replaced all together, and only when
        all the input was read without error and within --max-reject-rate.

        Exit status: 0 success, 1 usage error, 2 input or output error
        (unreadable file, a directory with no export file, corrupt or truncated
        gzip, unwritable --out, more input than one run can hold, too few free
        file descriptors or threads), 3 --max-reject-rate exceeded, 130 / 143 /
        129 interrupted by SIGINT / SIGTERM / SIGHUP, 152 stopped at the CPU
        time limit.

        Environment: ANALYZE_HASH_SEED=N (N an unsigned 64-bit decimal) fixes
        the key of the run's internal hashes (to reproduce a run exactly; the
        outputs do not depend on it, short of a hash collision).
        """
}
