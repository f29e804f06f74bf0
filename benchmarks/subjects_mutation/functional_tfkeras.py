"""Wine classifier with the tf.keras functional API (mutation subject)."""

import tensorflow as tf
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from tensorflow.keras import layers, regularizers

data = load_wine()
x_train, x_val, y_train, y_val = train_test_split(data.data, data.target, test_size=0.25, random_state=1)
scaler = StandardScaler()
x_train = scaler.fit_transform(x_train)
x_val = scaler.transform(x_val)

inputs = tf.keras.Input(shape=(13,))
x = layers.Dense(32, activation="relu", kernel_regularizer=regularizers.l2(0.01))(inputs)
for width in (16, 16):
    x = layers.Dense(width, activation=tf.nn.relu, kernel_initializer="he_normal")(x)
x = layers.Dropout(rate=0.3)(x)
x = layers.Dense(8, use_bias=False)(x)
outputs = layers.Dense(3, activation="softmax")(x)
model = tf.keras.Model(inputs=inputs, outputs=outputs)

model.compile(
    optimizer="adam",
    loss=tf.keras.losses.SparseCategoricalCrossentropy(),
    metrics=["accuracy"],
)
history = model.fit(x_train, y_train, epochs=30, validation_data=(x_val, y_val), verbose=0)
print(history.history["val_accuracy"][-1])
