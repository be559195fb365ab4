// SPDX-License-Identifier: Apache-2.0
/**
 * Netlink, internal to the core module (not exported): one framing codec ({@link
 * io.numaspread.netlink.NetlinkCodec}: {@code nlmsghdr}, attributes, alignment) under rtnetlink link messages,
 * kobject uevents and the generic netlink netdev family, and the {@link io.numaspread.netlink.NetlinkSocket}
 * that speaks them through a native backend's descriptor. It sits above {@code nativeaccess} and {@code kernel}
 * and below {@code nic} and {@code watch}, which speak netlink only through it.
 */
package io.numaspread.netlink;
