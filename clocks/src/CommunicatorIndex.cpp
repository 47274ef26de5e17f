#include <hdtrace/clocks/RunTable.hpp>

namespace hdtrace::clocks {

CommunicatorIndex::CommunicatorIndex(const reader::Project &project) {
    for (size_t index = 0; index < project.communicators.size(); ++index) {
        const reader::Communicator &communicator = project.communicators[index];
        sizes_.push_back(communicator.members.size());
        for (const reader::CommunicatorMember &member : communicator.members) {
            const uint64_t key =
                (static_cast<uint64_t>(static_cast<uint32_t>(member.global)) << 32) |
                static_cast<uint32_t>(member.cid);
            byRankAndCid_.try_emplace(key, static_cast<int64_t>(index));
        }
    }
}

int64_t CommunicatorIndex::find(int64_t worldRank, int64_t cid) const {
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(worldRank)) << 32) |
                         static_cast<uint32_t>(cid);
    auto found = byRankAndCid_.find(key);
    return found == byRankAndCid_.end() ? -1 : found->second;
}

}  // namespace hdtrace::clocks
