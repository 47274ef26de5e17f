#include <unistd.h>

#include <cstdio>

#include <hdtrace/merger/ProgressBar.hpp>

namespace hdtrace::merger {
namespace {

const char *stageName(MergeProgress::Stage stage) {
    switch (stage) {
        case MergeProgress::Stage::Reading:
            return "reading";
        case MergeProgress::Stage::Unifying:
            return "unifying";
        case MergeProgress::Stage::Writing:
            return "writing";
    }
    return "";
}

}  // namespace

void ProgressBar::update(const MergeProgress &progress) {
    if (progress.stage == MergeProgress::Stage::Reading && !shown_) {
        if (progress.total <= kMinimumFiles || !isatty(STDERR_FILENO)) return;
        shown_ = true;
    }
    if (!shown_) return;
    const int width = 40;
    const int filled =
        progress.total == 0
            ? width
            : static_cast<int>(static_cast<double>(progress.done) / progress.total * width);
    std::fprintf(
        stderr, "\r%s: %s [%.*s%*s] %zu/%zu %s", prefix_.c_str(), stageName(progress.stage), filled,
        "========================================", width - filled, "", progress.done,
        progress.total, progress.stage == MergeProgress::Stage::Reading ? ".info files" : "ranks");
    if (progress.stage == MergeProgress::Stage::Writing)
        std::fprintf(stderr, ", %.1f MiB", static_cast<double>(progress.bytesWritten) / (1 << 20));
    std::fputs("\033[K", stderr);  // clears what a longer line before left
    lineOpen_ = progress.done != progress.total;
    if (!lineOpen_) std::fputc('\n', stderr);
    std::fflush(stderr);
}

void ProgressBar::finish() {
    if (lineOpen_) std::fputc('\n', stderr);
    lineOpen_ = false;
}

}  // namespace hdtrace::merger
