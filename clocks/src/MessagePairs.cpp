#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include <hdtrace/clocks/MessagePairs.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "DialectRoles.hpp"

namespace hdtrace::clocks {
namespace {

constexpr int32_t kAnySource = -1, kAnyTag = -1, kProcNull = -2;

using Kind = dialect::MessageKind;

Kind kindOf(const std::string &name) {
    static const std::unordered_map<std::string, Kind> kinds = [] {
        std::unordered_map<std::string, Kind> byName;
        for (const auto &[call, kind] : dialect::kMessageKinds)
            byName.emplace(call, kind);
        return byName;
    }();
    auto found = kinds.find(name);
    return found == kinds.end() ? Kind::Other : found->second;
}

// One message posted by a call.
struct Post {
    int64_t row;
    int32_t rank, thread, peer, tag, cid;
    int64_t rid;  // -1: completes at the call's own end
};

int64_t keyOf(const CommunicatorIndex &communicators, int32_t rank, int32_t cid) {
    const int64_t index = communicators.find(rank, cid);
    return index >= 0 ? index : unknownCommunicatorKey(cid);
}

uint64_t pack(int32_t high, int32_t low) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(high)) << 32) | static_cast<uint32_t>(low);
}

struct MailboxKey {
    int32_t receiver;
    int64_t communicator;
    bool operator==(const MailboxKey &other) const {
        return receiver == other.receiver && communicator == other.communicator;
    }
};

struct MailboxKeyHash {
    size_t operator()(const MailboxKey &key) const {
        return std::hash<uint64_t>()(
            pack(key.receiver, static_cast<int32_t>(key.communicator)) ^
            (static_cast<uint64_t>(key.communicator >> 32) * 0x9e3779b97f4a7c15ULL));
    }
};

// The pending sends to one receiver on one communicator, one queue per
// (sender, tag) in the order the queues were first used.
struct Mailbox {
    std::vector<std::pair<uint64_t, std::deque<size_t>>> queues;  // (sender, tag) -> sends
    std::unordered_map<uint64_t, size_t> position;
};

// The queue whose first send the receive takes, or null: the one of its
// (sender, tag), or for a wildcard the earliest pending send among those it
// can match (the first queue on a tie).
std::deque<size_t> *queueFor(Mailbox &mailbox, const MessagePost &receive,
                             const std::vector<MessagePost> &sends) {
    if (receive.peer != kAnySource && receive.tag != kAnyTag) {
        auto found = mailbox.position.find(pack(receive.peer, receive.tag));
        if (found == mailbox.position.end() || mailbox.queues[found->second].second.empty())
            return nullptr;
        return &mailbox.queues[found->second].second;
    }
    std::deque<size_t> *best = nullptr;
    for (auto &[queueKey, queue] : mailbox.queues) {
        const int32_t sender = static_cast<int32_t>(queueKey >> 32);
        const int32_t tag = static_cast<int32_t>(static_cast<uint32_t>(queueKey));
        if (queue.empty() || (receive.peer != kAnySource && sender != receive.peer)) continue;
        if (receive.tag != kAnyTag && tag != receive.tag) continue;
        if (!best || sends[queue.front()].startNs < sends[best->front()].startNs) best = &queue;
    }
    return best;
}

// {row of an Mrecv/Imrecv: the table time of the start of the probe whose
// message it receives}: the traces holding such receives are read again for
// the mid attributes of their probes and receives.
std::unordered_map<int64_t, int64_t> probeStarts(const RunTable &table,
                                                 const std::vector<RunTrace> &traces,
                                                 const TableTime &tableTime, bool partial) {
    std::map<std::pair<int32_t, int32_t>, std::map<std::pair<int64_t, std::string>, int64_t>> rows;
    for (size_t row = 0; row < table.rows(); ++row) {
        const std::string &name = table.name(row);
        if (dialect::receivesMatchedMessage(name))
            rows[{table.rank[row], table.thread[row]}][{table.startNs[row], name}] =
                static_cast<int64_t>(row);
    }
    std::unordered_map<int64_t, int64_t> starts;
    for (const auto &[lane, receives] : rows) {
        const int32_t rank = lane.first, thread = lane.second;
        auto trace = std::find_if(traces.begin(), traces.end(), [&](const RunTrace &candidate) {
            return candidate.rank == rank && candidate.thread == thread;
        });
        if (trace == traces.end()) continue;
        reader::TraceOptions options;
        options.partial = partial;
        options.filter.names.assign(std::begin(dialect::kMatchedMessageCalls),
                                    std::end(dialect::kMatchedMessageCalls));
        reader::TraceReader traceReader(trace->path, options);
        reader::Event event;
        std::unordered_map<int64_t, int64_t> probed;  // mid -> probe start
        while (traceReader.next(event)) {
            const std::string *text = event.attribute(dialect::matchedMessageAttribute(event.name));
            auto mid = text ? reader::parseInteger(*text) : std::nullopt;
            if (!mid || *mid < 0 || !event.hasStart) continue;
            const int64_t start = tableTime(rank, event.startNs);
            if (!dialect::receivesMatchedMessage(event.name)) {
                probed[*mid] = start;
            } else if (auto found = probed.find(*mid); found != probed.end()) {
                auto row = receives.find({start, event.name});
                if (row != receives.end()) starts[row->second] = found->second;
            }
        }
    }
    return starts;
}

}  // namespace

std::vector<MessagePair> matchMessages(const RunTable &table,
                                       const CommunicatorIndex &communicators,
                                       const std::vector<RunTrace> &traces,
                                       const TableTime &tableTime, bool partial) {
    std::vector<Kind> kinds;
    bool matchedReceives = false;
    for (const std::string &name : table.names) {
        kinds.push_back(kindOf(name));
        matchedReceives |= dialect::receivesMatchedMessage(name);
    }
    auto kindAt = [&](size_t row) { return kinds[static_cast<size_t>(table.nameCode[row])]; };

    // Startall's <For> children start requests; Start names its request itself.
    std::vector<std::pair<int64_t, int64_t>> started;  // (Start/Startall row, rid)
    for (size_t k = 0; k < table.completionRow.size(); ++k)
        if (kindAt(static_cast<size_t>(table.completionRow[k])) == Kind::Startall)
            started.emplace_back(table.completionRow[k], table.completionRid[k]);
    for (size_t row = 0; row < table.rows(); ++row)
        if (kindAt(row) == Kind::Start) started.emplace_back(row, table.rid[row]);

    std::vector<Post> sends, receives;
    std::unordered_map<uint64_t, std::unordered_map<int64_t, int64_t>> templates;
    for (size_t row = 0; row < table.rows(); ++row) {
        const Kind kind = kindAt(row);
        const int64_t r = static_cast<int64_t>(row);
        const Post post{
            r, table.rank[row], table.thread[row], table.peer[row], table.tag[row], table.cid[row],
            -1};
        switch (kind) {
            case Kind::Send:
                sends.push_back(post);
                break;
            case Kind::NonblockingSend:
                sends.push_back(post), sends.back().rid = table.rid[row];
                break;
            case Kind::SendReceive:
                sends.push_back(post);
                receives.push_back(post);
                receives.back().peer = table.recvPeer[row];
                receives.back().tag = table.recvTag[row];
                break;
            case Kind::Receive:
                receives.push_back(post);
                break;
            case Kind::NonblockingRecv:
                receives.push_back(post), receives.back().rid = table.rid[row];
                break;
            case Kind::PersistentSend:
            case Kind::PersistentReceive:
                templates[pack(table.rank[row], table.thread[row])][table.rid[row]] = r;
                break;
            default:
                break;
        }
    }
    for (const auto &[row, rid] : started) {
        const size_t at = static_cast<size_t>(row);
        auto lane = templates.find(pack(table.rank[at], table.thread[at]));
        if (lane == templates.end()) continue;
        auto found = lane->second.find(rid);
        if (found == lane->second.end()) continue;
        const size_t model = static_cast<size_t>(found->second);
        const Post post{row,
                        table.rank[at],
                        table.thread[at],
                        table.peer[model],
                        table.tag[model],
                        table.cid[model],
                        rid};
        (kindAt(model) == Kind::PersistentSend ? sends : receives).push_back(post);
    }

    std::stable_sort(sends.begin(), sends.end(), [&](const Post &a, const Post &b) {
        return table.startNs[static_cast<size_t>(a.row)] <
               table.startNs[static_cast<size_t>(b.row)];
    });
    // A matched receive takes its message when its probe ran.
    std::unordered_map<int64_t, int64_t> matchedAt;
    if (matchedReceives) matchedAt = probeStarts(table, traces, tableTime, partial);
    auto orderOf = [&](const Post &post) {
        auto found = matchedAt.find(post.row);
        return found != matchedAt.end() ? found->second
                                        : table.startNs[static_cast<size_t>(post.row)];
    };
    std::stable_sort(receives.begin(), receives.end(),
                     [&](const Post &a, const Post &b) { return orderOf(a) < orderOf(b); });

    auto messagePosts = [&](const std::vector<Post> &posts) {
        std::vector<MessagePost> out;
        out.reserve(posts.size());
        for (const Post &post : posts)
            out.push_back({post.rank, post.peer, post.tag,
                           keyOf(communicators, post.rank, post.cid),
                           table.startNs[static_cast<size_t>(post.row)]});
        return out;
    };
    const PostPairing pairing = pairPosts(messagePosts(sends), messagePosts(receives));
    std::vector<MessagePair> pairs;
    pairs.reserve(pairing.pairs.size());
    for (const auto &[send, receive] : pairing.pairs)
        pairs.push_back({sends[send].row, receives[receive].row, receives[receive].rid});
    return pairs;
}

PostPairing pairPosts(const std::vector<MessagePost> &sends,
                      const std::vector<MessagePost> &receives) {
    PostPairing result;
    std::unordered_map<MailboxKey, Mailbox, MailboxKeyHash> mailboxes;
    for (size_t index = 0; index < sends.size(); ++index) {
        const MessagePost &send = sends[index];
        if (send.peer < 0 || send.peer == reader::kNoValue32)
            continue;  // MPI_PROC_NULL: no message
        Mailbox &mailbox = mailboxes[{send.peer, send.communicator}];
        const uint64_t queueKey = pack(send.rank, send.tag);
        auto [entry, added] = mailbox.position.try_emplace(queueKey, mailbox.queues.size());
        if (added) mailbox.queues.emplace_back(queueKey, std::deque<size_t>());
        mailbox.queues[entry->second].second.push_back(index);
    }

    for (size_t index = 0; index < receives.size(); ++index) {
        const MessagePost &receive = receives[index];
        if (receive.peer == kProcNull || receive.peer == reader::kNoValue32) continue;
        auto mailbox = mailboxes.find({receive.rank, receive.communicator});
        std::deque<size_t> *best =
            mailbox == mailboxes.end() ? nullptr : queueFor(mailbox->second, receive, sends);
        if (!best) {
            result.unmatchedReceives.push_back(index);
            continue;
        }
        result.pairs.emplace_back(best->front(), index);
        best->pop_front();
    }
    for (const auto &[key, mailbox] : mailboxes)
        for (const auto &[queueKey, queue] : mailbox.queues)
            result.unmatchedSends.insert(result.unmatchedSends.end(), queue.begin(), queue.end());
    std::sort(result.unmatchedSends.begin(), result.unmatchedSends.end());
    return result;
}

}  // namespace hdtrace::clocks
