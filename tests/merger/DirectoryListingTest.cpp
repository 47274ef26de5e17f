// The listing discovery answers its questions from: every name of the
// directory once, sorted, with the type the directory records, found by
// name with or without a hint of where it is.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "DirectoryListing.hpp"
#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

using Type = DirectoryListing::Type;

TEST(DirectoryListing, EveryNameSortedWithItsType) {
    RunDirectory run;
    run.write("b_h_0_0.trc", "");
    run.write("a_h_0_0.info", "");
    ASSERT_EQ(mkdir(run.file("c-directory").c_str(), 0755), 0);
    ASSERT_EQ(mkfifo(run.file("a-fifo").c_str(), 0644), 0);
    ASSERT_EQ(symlink("b_h_0_0.trc", run.file("b_h_0_0.info").c_str()), 0);

    DirectoryListing listing;
    std::string error;
    ASSERT_TRUE(listing.read(run.path(), &error)) << error;
    std::vector<std::string> names;
    for (const DirectoryListing::Entry &entry : listing.sorted())
        names.emplace_back(entry.name);
    EXPECT_EQ(names, (std::vector<std::string>{".", "..", "a-fifo", "a_h_0_0.info", "b_h_0_0.info",
                                               "b_h_0_0.trc", "c-directory"}));

    // Where the file system records types (ext4, tmpfs, xfs, btrfs do), a
    // link is a link whatever it leads to; where it does not, every type
    // is unknown and the merger asks each file.
    const auto typeOf = [&](const char *name) {
        const DirectoryListing::Entry *entry = listing.find(name);
        EXPECT_NE(entry, nullptr) << name;
        return entry ? entry->type : Type::Unknown;
    };
    if (typeOf("a_h_0_0.info") == Type::Unknown) {
        for (const char *name : {"a-fifo", "b_h_0_0.info", "b_h_0_0.trc", "c-directory"})
            EXPECT_EQ(typeOf(name), Type::Unknown) << name;
        GTEST_SKIP() << "the file system of " << run.path() << " records no file types";
    }
    EXPECT_EQ(typeOf("a_h_0_0.info"), Type::Regular);
    EXPECT_EQ(typeOf("b_h_0_0.trc"), Type::Regular);
    EXPECT_EQ(typeOf("b_h_0_0.info"), Type::Unknown);
    EXPECT_EQ(typeOf("a-fifo"), Type::Other);
    EXPECT_EQ(typeOf("c-directory"), Type::Other);
}

TEST(DirectoryListing, FindsANameWhereverTheHintPoints) {
    RunDirectory run;
    for (int rank = 0; rank < 40; ++rank)
        for (const char *suffix : {".info", ".trc"})
            run.write("app_h_" + std::to_string(rank) + "_0" + suffix, "");
    DirectoryListing listing;
    std::string error;
    ASSERT_TRUE(listing.read(run.path(), &error)) << error;
    const std::vector<DirectoryListing::Entry> &entries = listing.sorted();
    for (size_t index = 0; index < entries.size(); ++index) {
        const std::string name(entries[index].name);
        // Without a hint, at the hint, just before it, and far from it.
        for (const size_t near : {SIZE_MAX, index, index > 0 ? index - 1 : index, size_t(0),
                                  entries.size() - 1, entries.size() + 5}) {
            const DirectoryListing::Entry *found = listing.find(name, near);
            ASSERT_NE(found, nullptr) << name << " near " << near;
            EXPECT_EQ(found, &entries[index]) << name << " near " << near;
        }
    }
    EXPECT_EQ(listing.find("app_h_40_0.info", 0), nullptr);
    EXPECT_EQ(listing.find("app_h_1_0.inf", 2), nullptr);
    EXPECT_EQ(listing.find(""), nullptr);
}

TEST(DirectoryListing, AnUnreadableDirectorySaysWhy) {
    RunDirectory run;
    DirectoryListing listing;
    std::string error;
    EXPECT_FALSE(listing.read(run.file("missing"), &error));
    EXPECT_EQ(error, "No such file or directory");

    DirectoryListings listings;
    error.clear();
    EXPECT_EQ(listings.of(run.file("missing"), &error), nullptr);
    EXPECT_EQ(error, "No such file or directory");
    // Asked again, after another directory, it says the same.
    std::string other;
    EXPECT_NE(listings.of(run.path(), &other), nullptr);
    error.clear();
    EXPECT_EQ(listings.of(run.file("missing"), &error), nullptr);
    EXPECT_EQ(error, "No such file or directory");
}

TEST(DirectoryListing, EachDirectoryIsListedOnce) {
    RunDirectory run;
    run.write("app_h_0_0.info", "");
    DirectoryListings listings;
    std::string error;
    const DirectoryListing *first = listings.of(run.path(), &error);
    ASSERT_NE(first, nullptr) << error;
    // A file added later is not seen: the listing is the one made first.
    run.write("app_h_1_0.info", "");
    EXPECT_EQ(listings.of(run.path(), &error), first);
    EXPECT_EQ(first->find("app_h_1_0.info"), nullptr);
    EXPECT_NE(first->find("app_h_0_0.info"), nullptr);
}

}  // namespace
}  // namespace hdtrace::merger::testing
