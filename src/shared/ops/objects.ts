// Object collectives (torch's *_object / *_object_list): small JSON values, pickled by torch and
// serialised to UTF-8 JSON here, moved as a length exchange followed by a byte collective.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const OBJECT_COLLECTIVES = ['broadcast_object', 'all_gather_object', 'gather_object', 'scatter_object'] as const;
export type ObjectCollectiveName = (typeof OBJECT_COLLECTIVES)[number];

export interface ObjectDescriptor {
  name: ObjectCollectiveName;
  summary: string;
  teaching: string;
  rooted: boolean;
  /** What `rank` holds afterwards, given the object each rank starts with; undefined = nothing. */
  expected(objectOf: (rank: number) => Json, world: number, rank: number, root: number): Json | undefined;
}

const everyRank = (objectOf: (rank: number) => Json, world: number) => Array.from({ length: world }, (_, p) => objectOf(p));

export const OBJECT_DESCRIPTORS: Record<ObjectCollectiveName, ObjectDescriptor> = {
  broadcast_object: {
    name: 'broadcast_object',
    summary: "The root's JSON value is copied to every rank.",
    teaching: "broadcast_object_list serialises the root's objects, broadcasts their sizes, then the bytes; every rank deserialises.",
    rooted: true,
    expected: (objectOf, _world, _rank, root) => objectOf(root),
  },
  all_gather_object: {
    name: 'all_gather_object',
    summary: "Every rank receives the list of every rank's JSON value.",
    teaching:
      'all_gather_object exchanges the serialised sizes first (an all_gather of one integer), pads to the largest, then all_gathers the bytes.',
    rooted: false,
    expected: (objectOf, world) => everyRank(objectOf, world),
  },
  gather_object: {
    name: 'gather_object',
    summary: "The root receives the list of every rank's JSON value.",
    teaching: 'gather_object is all_gather_object with one destination; the other ranks receive nothing.',
    rooted: true,
    expected: (objectOf, world, rank, root) => (rank === root ? everyRank(objectOf, world) : undefined),
  },
  scatter_object: {
    name: 'scatter_object',
    summary: 'The root sends value j of its list to rank j.',
    teaching: 'scatter_object_list: the root holds one object per rank; sizes are scattered first, then the padded bytes.',
    rooted: true,
    expected: (objectOf, _world, rank) => objectOf(rank),
  },
};

/**
 * Rank `rank`'s value in an object step: one value for every rank, or one per rank (the plan
 * refuses any other length, so no rank is handed another rank's value); default {"rank": r}.
 */
export const objectOfRank = (objects: readonly Json[] | null, rank: number): Json =>
  objects ? objects[objects.length === 1 ? 0 : rank] : { rank };
