import numpy as np
import keras
from keras import layers

rng = np.random.default_rng(0)
n = 2000
numeric = rng.normal(size=(n, 8)).astype("float32")
category = rng.integers(0, 5, size=(n, 1))
target = ((numeric[:, 0] + category[:, 0] * 0.3) > 1.0).astype("float32")

num_in = keras.Input(shape=(8,), name="numeric")
cat_in = keras.Input(shape=(1,), name="category")
cat_emb = layers.Flatten()(layers.Embedding(5, 4)(cat_in))
x = layers.Concatenate()([num_in, cat_emb])
x = layers.Dense(32, activation="relu")(x)
x = layers.Dense(16, activation="relu")(x)
out = layers.Dense(1, activation="sigmoid")(x)

model = keras.Model(inputs=[num_in, cat_in], outputs=out)
model.compile(optimizer=keras.optimizers.Adam(), loss="binary_crossentropy", metrics=["accuracy"])
model.fit([numeric, category], target, epochs=30, batch_size=64, validation_split=0.2)
