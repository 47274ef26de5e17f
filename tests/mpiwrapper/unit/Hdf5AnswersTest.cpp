// The HDF5 layer's remembered answers (Hdf5Answers.hpp) without HDF5: an
// answer is asked once and then remembered, until a change of its id (made
// by any thread, or while it was being asked) or of every id; a failed
// answer is asked again. Each test has a question of its own, so that no
// test sees another's answers.
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "Hdf5Answers.hpp"

namespace hdtracempi {
namespace {

// An ask that counts its calls and answers id * 10 (or what it is told).
struct CountedAsk {
    int *asked;
    int64_t answer = -2;  // -2: id * 10
    int64_t operator()(hid_t id) const {
        ++*asked;
        return answer == -2 ? static_cast<int64_t>(id) * 10 : answer;
    }
};

TEST(Hdf5Answers, AnAnswerIsAskedOnceAndThenRemembered) {
    using Answers = RememberedAnswers<struct RememberedQuestion>;
    int asked = 0;
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(Answers::answer(7, CountedAsk{&asked}), 70);
        EXPECT_EQ(Answers::answer(8, CountedAsk{&asked}), 80);
    }
    EXPECT_EQ(asked, 2);
}

TEST(Hdf5Answers, AChangeOfTheIdMakesItAskedAgainAndOthersStay) {
    using Answers = RememberedAnswers<struct ChangedQuestion>;
    int asked = 0;
    Answers::answer(7, CountedAsk{&asked});
    Answers::answer(8, CountedAsk{&asked});
    Answers::changed(7);
    EXPECT_EQ(Answers::answer(7, CountedAsk{&asked, 71}), 71);
    EXPECT_EQ(asked, 3);
    EXPECT_EQ(Answers::answer(8, CountedAsk{&asked}), 80);  // 8 and 7: other slots
    EXPECT_EQ(asked, 3);
}

TEST(Hdf5Answers, AFailedAnswerIsNotRemembered) {
    using Answers = RememberedAnswers<struct FailedQuestion>;
    int asked = 0;
    EXPECT_EQ(Answers::answer(5, CountedAsk{&asked, -1}), -1);
    EXPECT_EQ(Answers::answer(5, CountedAsk{&asked, 12}), 12);
    EXPECT_EQ(asked, 2);
}

TEST(Hdf5Answers, EveryAnswerIsAskedAgainAfterAllChanged) {
    using Answers = RememberedAnswers<struct AllQuestion>;
    int asked = 0;
    for (hid_t id = 1; id <= 20; ++id)
        Answers::answer(id, CountedAsk{&asked});
    const int first = asked;
    Answers::allChanged();
    for (hid_t id = 1; id <= 20; ++id)
        EXPECT_EQ(Answers::answer(id, CountedAsk{&asked, id + 1000}), id + 1000) << id;
    EXPECT_EQ(asked, first + 20);
}

TEST(Hdf5Answers, AChangeWhileTheAnswerIsAskedIsNotMissed) {
    using Answers = RememberedAnswers<struct RacingQuestion>;
    int asked = 0;
    // The id changes after the library read its state for the answer.
    const auto changedMeanwhile = [&](hid_t id) -> int64_t {
        ++asked;
        Answers::changed(id);
        return 1;
    };
    EXPECT_EQ(Answers::answer(3, changedMeanwhile), 1);
    EXPECT_EQ(Answers::answer(3, CountedAsk{&asked, 2}), 2);
    EXPECT_EQ(asked, 2);
}

TEST(Hdf5Answers, AChangeByAnotherThreadMakesItAskedAgain) {
    using Answers = RememberedAnswers<struct ThreadsQuestion>;
    std::promise<void> remembered, changed;
    std::future<void> changedSeen = changed.get_future();
    int asked = 0;
    int64_t before = 0, after = 0, again = 0;
    std::thread reader([&] {
        before = Answers::answer(4, CountedAsk{&asked});
        remembered.set_value();
        changedSeen.wait();
        after = Answers::answer(4, CountedAsk{&asked, 41});
        again = Answers::answer(4, CountedAsk{&asked, 42});
    });
    remembered.get_future().wait();
    // This thread's own answer is its own: asked, not the reader's.
    int askedHere = 0;
    EXPECT_EQ(Answers::answer(4, CountedAsk{&askedHere, 40}), 40);
    EXPECT_EQ(askedHere, 1);
    Answers::changed(4);
    changed.set_value();
    reader.join();
    EXPECT_EQ(before, 40);
    EXPECT_EQ(after, 41);
    EXPECT_EQ(again, 41);  // remembered again after the change
    EXPECT_EQ(asked, 2);
}

TEST(Hdf5Answers, QuestionsAreApart) {
    using Sizes = RememberedAnswers<struct SizesApartQuestion>;
    using Modes = RememberedAnswers<struct ModesApartQuestion>;
    int asked = 0;
    Sizes::answer(9, CountedAsk{&asked});
    Modes::answer(9, CountedAsk{&asked});
    Modes::changed(9);
    EXPECT_EQ(Sizes::answer(9, CountedAsk{&asked}), 90);
    EXPECT_EQ(asked, 2);
}

}  // namespace
}  // namespace hdtracempi
