r"""The companion's objectives as `sentence-transformers <https://sbert.net>`_ losses.

Every class here is a ``torch.nn.Module`` with that library's conventions: it is constructed with the model
(``loss = SimACELoss(model)``), the trainer calls ``loss(sentence_features, labels)`` with one feature dict per
input column of the dataset and the ``label``/``score`` column (or ``None``), and it returns a scalar. All the
maths is delegated to :mod:`companion.losses`; these classes only embed the columns and rearrange them into the
layout the functional losses expect (``compute_loss_from_embeddings`` takes the embeddings directly). One module
per paper holds its objectives and their citations (``simace``, ``circumplex``, ``weighted_cl``, ``concepts``,
``angle``), on a shared base class (``base``); every loss is imported from here.

+--------------------------+-------------------------------------------+--------------------------------------+
| loss                     | dataset columns                           | labels                               |
+==========================+===========================================+======================================+
| ``SimACELoss``           | ``(anchor, positive)`` or ``(text,)``     | none                                 |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``ArcConLoss``           | ``(anchor, positive)`` or ``(text,)``     | none                                 |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``SINCERELoss``          | ``(text,)``                               | integer class (emotion) ids          |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``SoftCSELoss``          | ``(text,)``                               | integer ids into the emotion angles  |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``CircularCSELoss``      | ``(text,)``                               | integer ids into the emotion angles  |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``WeightedInfoNCELoss``  | ``(text,)``                               | what its weighting reads             |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``SupConLoss``           | ``(text,)``                               | class ids                            |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``SoftSupConLoss``       | ``(text,)``                               | class ids                            |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``YAwareLoss``           | ``(text,)``                               | a number or a vector per text        |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``XCLRLoss``             | ``(text,)``                               | a non-zero vector per text           |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``EuclideanInfoNCELoss`` | ``(text,)``                               | a number or a vector per text        |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``InfoNCEBCELoss``       | ``(anchor, positive[, negative_1, ...])`` | none                                 |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``CoSENTLoss``           | ``(sentence1, sentence2)``                | a score per pair                     |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``AnglELoss``            | ``(sentence1, sentence2)`` or n-tuples    | a score per pair (none for n-tuples) |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``AnglEObjectiveLoss``   | ``(sentence1, sentence2)``                | a score per pair                     |
+--------------------------+-------------------------------------------+--------------------------------------+

``sentence_transformers`` is imported only when a loss embeds a batch (and only for its column-merging helper);
without it, the losses work with any module that maps a feature dict to ``{"sentence_embedding": tensor}``.
"""

# the API reference lists the losses in the order of these imports (__all__'s), so they keep it
# isort: off
from companion.st.simace import SimACELoss, ArcConLoss
from companion.st.circumplex import SINCERELoss, SoftCSELoss, CircularCSELoss
from companion.st.weighted_cl import (WeightedInfoNCELoss, SupConLoss, SoftSupConLoss, YAwareLoss, XCLRLoss,
                                      EuclideanInfoNCELoss)
from companion.st.concepts import InfoNCEBCELoss
from companion.st.angle import CoSENTLoss, AnglELoss, AnglEObjectiveLoss
# isort: on

__all__ = [
    "SimACELoss", "ArcConLoss", "SINCERELoss", "SoftCSELoss", "CircularCSELoss", "WeightedInfoNCELoss",
    "SupConLoss", "SoftSupConLoss", "YAwareLoss", "XCLRLoss", "EuclideanInfoNCELoss", "InfoNCEBCELoss",
    "CoSENTLoss", "AnglELoss", "AnglEObjectiveLoss",
]
