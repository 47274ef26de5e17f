// Never crash, never hang: runs whose .info files are cut and mutated at
// random (deterministically) either merge or fail with a MergeError that
// names a place; a failed merge leaves no .proj behind.
#include <random>

#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

std::string goodInfo(int rank) {
    return standardHeader(rank, 3) +
           "Comm map='0->0;1->1;2->2;' id=2 name=''\n"
           "Comm map='" +
           std::to_string(rank) + "->0;' remote='" + std::to_string((rank + 1) % 3) +
           "->0;' id=3 name='i'\n"
           "File name=\"out &amp; x\" Size=10 id=0\n"
           "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n"
           "Type id='100' combiner='MPI_COMBINER_VECTOR' name='' integers='2;3;4;' types='6;'\n"
           "Type id='101' combiner='MPI_COMBINER_STRUCT' name='s' integers='2;1;1;' "
           "addresses='0;8;' types='6;100;'\n"
           "Type id='102' combiner='MPI_COMBINER_DARRAY' name='' "
           "integers='4;1;2;8;8;0;1;-1;2;2;2;0;' types='6;'\n"
           "Type id='103' combiner='MPI_COMBINER_SUBARRAY' name='' integers='1;4;2;1;0;' "
           "types='101;'\n";
}

std::string mutate(std::string text, std::mt19937 &random) {
    static const std::string alphabet = "0123456789;.->'\"= &#x\n\r\tabcdefgMPI_COMBINER\x01\xff";
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int edit = 0; edit < edits && !text.empty(); ++edit) {
        const size_t at = random() % text.size();
        switch (random() % 5) {
            case 0:  // cut the file here
                text.resize(at);
                break;
            case 1:  // replace a byte
                text[at] = alphabet[random() % alphabet.size()];
                break;
            case 2:  // insert a byte
                text.insert(at, 1, alphabet[random() % alphabet.size()]);
                break;
            case 3:  // delete a stretch
                text.erase(at, random() % 12);
                break;
            default:  // duplicate a stretch
                text.insert(at, text.substr(random() % text.size(), random() % 40));
                break;
        }
    }
    return text;
}

TEST(Robustness, MutatedRunsMergeOrFailCleanly) {
    std::mt19937 random(20260501);
    int merged = 0, failed = 0;
    for (int round = 0; round < 300; ++round) {
        RunDirectory run;
        const int victim = static_cast<int>(random() % 3);
        for (int rank = 0; rank < 3; ++rank) {
            const std::string info = goodInfo(rank);
            run.addTrace("app", "h", rank, 0, rank == victim ? mutate(info, random) : info);
        }
        for (const bool force : {false, true}) {
            try {
                mergeDirectory(run, force);
                ProjectXml project(run.file("app.proj"));
                EXPECT_TRUE(project.valid()) << "round " << round;
                ++merged;
            } catch (const MergeError &error) {
                EXPECT_FALSE(error.detail().empty());
                EXPECT_FALSE(error.file().empty()) << "round " << round << ": " << error.what();
                EXPECT_FALSE(run.exists("app.proj")) << "round " << round;
                ++failed;
            }
        }
    }
    // Both outcomes occur, so the mutations reach the checks.
    EXPECT_GT(merged, 50);
    EXPECT_GT(failed, 50);
}

}  // namespace
}  // namespace hdtrace::merger::testing
