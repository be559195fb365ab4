// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

/** The right edge and the bottom of what was drawn, in the picture's coordinates. */
record Extent(double right, double bottom) {}
