// DirectTransfers on its own, in a program linked with the wrapper: the C
// library's own transfer functions are found (so that the POSIX layer's
// recorded transfers take the direct way here), another function never
// passes for one of them, and each direct transfer gives what the C
// library's function gives: bytes, results and errno.
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "DirectTransfers.hpp"
#include "PosixReal.hpp"

namespace hdtracempi {
namespace {

#if HDTRACE_DIRECT_TRANSFERS

template <typename Function>
const void *address(Function function) {
    return reinterpret_cast<const void *>(function);
}

TEST(DirectTransfers, TheCLibrarysOwnFunctionsAreFound) {
    const RealPosix &real = realPosix();
    EXPECT_TRUE(transfersDirectly(address(real.read), SYS_read));
    EXPECT_TRUE(transfersDirectly(address(real.write), SYS_write));
    EXPECT_TRUE(transfersDirectly(address(real.pread), SYS_pread64));
    EXPECT_TRUE(transfersDirectly(address(real.pread64), SYS_pread64));
    EXPECT_TRUE(transfersDirectly(address(real.pwrite), SYS_pwrite64));
    EXPECT_TRUE(transfersDirectly(address(real.pwrite64), SYS_pwrite64));
    EXPECT_TRUE(transfersDirectly(address(real.readv), SYS_readv));
    EXPECT_TRUE(transfersDirectly(address(real.writev), SYS_writev));
    EXPECT_TRUE(transfersDirectly(address(real.preadv), SYS_preadv));
    EXPECT_TRUE(transfersDirectly(address(real.pwritev), SYS_pwritev));
}

TEST(DirectTransfers, NoOtherFunctionPassesForOne) {
    const RealPosix &real = realPosix();
    // Another call's function, a function of another library, nothing.
    EXPECT_FALSE(transfersDirectly(address(real.pread), SYS_pwrite64));
    EXPECT_FALSE(transfersDirectly(address(real.write), SYS_read));
    EXPECT_FALSE(transfersDirectly(address(&std::getenv), SYS_read));
    EXPECT_FALSE(transfersDirectly(nullptr, SYS_pwrite64));
    // A system call the layer does not make itself.
    EXPECT_FALSE(transfersDirectly(address(real.lseek), SYS_lseek));
}

class DirectTransferOnAFile : public ::testing::Test {
  protected:
    void SetUp() override {
        char name[] = "/tmp/hdtrace-direct-XXXXXX";
        fd_ = mkstemp(name);
        ASSERT_GE(fd_, 0);
        unlink(name);
    }
    void TearDown() override { close(fd_); }
    std::string contents() {
        std::string text(4096, '\0');
        const ssize_t got = ::pread(fd_, text.data(), text.size(), 0);
        text.resize(got < 0 ? 0 : static_cast<size_t>(got));
        return text;
    }
    int fd_ = -1;
};

TEST_F(DirectTransferOnAFile, EachTransferDoesWhatTheCLibrarysDoes) {
    const char text[] = "abcdefghij";
    auto address = [](const void *data) { return reinterpret_cast<long>(data); };
    EXPECT_EQ(directTransfer(SYS_write, fd_, address(text), 4), 4);
    EXPECT_EQ(directTransfer(SYS_pwrite64, fd_, address(text + 4), 3, 10), 3);
    iovec pieces[2] = {{const_cast<char *>(text), 2}, {const_cast<char *>(text + 8), 2}};
    EXPECT_EQ(directTransfer(SYS_writev, fd_, address(pieces), 2), 4);
    EXPECT_EQ(directTransfer(SYS_pwritev, fd_, address(pieces), 2, 20, 0), 4);
    EXPECT_EQ(contents(), std::string("abcdabij\0\0efg\0\0\0\0\0\0\0abij", 24));

    char got[8] = {};
    ASSERT_EQ(lseek(fd_, 2, SEEK_SET), 2);
    EXPECT_EQ(directTransfer(SYS_read, fd_, address(got), 3), 3);
    EXPECT_EQ(std::string(got, 3), "cda");
    EXPECT_EQ(lseek(fd_, 0, SEEK_CUR), 5);  // the position moved as read(2) moves it
    EXPECT_EQ(directTransfer(SYS_pread64, fd_, address(got), 8, 20), 4);  // 4 bytes there
    EXPECT_EQ(std::string(got, 4), "abij");
    char first[2], second[3];
    iovec into[2] = {{first, 2}, {second, 3}};
    EXPECT_EQ(directTransfer(SYS_readv, fd_, address(into), 2), 5);
    EXPECT_EQ(std::string(first, 2) + std::string(second, 3), std::string("bij\0\0", 5));
    EXPECT_EQ(directTransfer(SYS_preadv, fd_, address(into), 2, 10, 0), 5);
    EXPECT_EQ(std::string(first, 2) + std::string(second, 3), std::string("efg\0\0", 5));
}

TEST_F(DirectTransferOnAFile, AFailureGivesMinusOneAndErrnoAsTheCLibrarysDoes) {
    char byte = 'x';
    const long at = reinterpret_cast<long>(&byte);
    errno = 0;
    EXPECT_EQ(directTransfer(SYS_pwrite64, -1, at, 1, 0), -1);
    EXPECT_EQ(errno, EBADF);
    errno = 0;
    EXPECT_EQ(::pwrite(-1, &byte, 1, 0), -1);
    EXPECT_EQ(errno, EBADF);
    errno = 0;
    EXPECT_EQ(directTransfer(SYS_pread64, fd_, at, 1, -5), -1);
    EXPECT_EQ(errno, EINVAL);
    // A success leaves errno as it was.
    errno = 12345;
    EXPECT_EQ(directTransfer(SYS_pwrite64, fd_, at, 1, 0), 1);
    EXPECT_EQ(errno, 12345);
}

#else

TEST(DirectTransfers, NotOnThisSystem) {
    GTEST_SKIP() << "the direct transfers are made on x86-64 Linux with the GNU C library only";
}

#endif

}  // namespace
}  // namespace hdtracempi
